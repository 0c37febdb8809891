// Detecting the local machine: CPUs (sysconf / the process's affinity mask), memory
// (/proc/meminfo MemTotal) and NVIDIA GPUs through `nvidia-smi --query-gpu=index,name
// --format=csv,noheader` when that program exists (no GPUs, and no error, when it does not).
// This file does IO; the parsing it relies on is pure and tested on its own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "sched/inventory.h"

namespace trainyard::sched {

// The lines of `nvidia-smi --query-gpu=index,name --format=csv,noheader` as devices, each model
// mapped with `Catalog::FindAcceleratorByDeviceName` ("" when unknown). INVALID_ARGUMENT naming
// the line when a line is malformed.
Result<std::vector<Device>> ParseNvidiaSmiGpus(std::string_view output,
                                               const catalog::Catalog& catalog);

// "MemTotal:       16314516 kB" -> 15932 (MiB). INVALID_ARGUMENT when the line is missing.
Result<std::int64_t> ParseMemTotalMib(std::string_view proc_meminfo);

struct DetectOptions {
  std::string nvidia_smi = "nvidia-smi";  // a name looked up on PATH, or a path
};

// The local node, named "localhost", with the well-known labels (sched/node_labels.h; the GPU
// ones from the first GPU nvidia-smi lists). A failing nvidia-smi (present but exiting non-zero) is
// an error naming it and its stderr's last line (stdout's when stderr is empty); an absent one, or
// one saying "No devices were found" (its exit status 6), means no GPUs. nvidia-smi is killed
// and the detection fails when it hangs silently for 30 s (a wedged driver).
Result<Node> DetectLocalNode(const catalog::Catalog& catalog, const DetectOptions& options = {});

}  // namespace trainyard::sched
