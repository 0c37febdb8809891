// The parts `trainyard serve` builds from its options before Daemon::Open (app/daemon.h) wires
// them: the inventory, the Slurm backend, the container runtime, and the small facts they need
// (how CPUs and memory are counted, the nodes as a TFJob sees them, the server's own address for
// its replicas). Each checks its options and answers INVALID_ARGUMENT naming the flag. Private to
// app/.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/serve.h"
#include "base/status.h"
#include "catalog/catalog.h"
#include "kube/tfjob_mapping.h"
#include "run/container/podman_runtime.h"
#include "run/slurm/slurm_backend.h"
#include "sched/inventory.h"
#include "sched/placement.h"

namespace trainyard::app {

// The text of the file an option names; INVALID_ARGUMENT on `option` when it cannot be read.
Result<std::string> ReadOptionFile(const std::string& path, const std::string& option,
                                   std::string_view what);

// The nodes as a TFJob's mapping sees them: labels, and the accelerator types each offers.
std::vector<kube::NodeView> NodeViews(const sched::Inventory& inventory);

// Whether CPUs and memory are exclusive (`--strict-resources`), as placement and the cluster view
// count them.
sched::Accounting AccountingOf(const ServeOptions& options);

// The nodes jobs run on: `--cluster-file`'s, else this machine as detected, with
// `--accelerator-emulation`'s devices added to each.
Result<sched::Inventory> BuildInventory(const ServeOptions& options,
                                        const catalog::Catalog& catalog);

// The Slurm backend for `--backend slurm`; null for the local backend.
Result<std::unique_ptr<run::slurm::SlurmBackend>> BuildSlurmBackend(
    const ServeOptions& options, const catalog::Catalog& catalog);

// The container runtime for jobs with imageUri: podman as detected on this machine, with the
// operator's options. INVALID_ARGUMENT for a bad option (a registry not on loopback, an
// unreadable credentials file, a malformed ulimit). Never fails for a machine without podman:
// its image jobs FAIL saying how to install it.
Result<std::unique_ptr<run::container::PodmanRuntime>> BuildContainerRuntime(
    const ServeOptions& options);

// Debian's /usr/bin/python3 when it is there, else `python3` on PATH.
std::string DefaultPython();

// The address replicas use to reach this server's storage API (https when it serves TLS: their
// client then needs the server's CA).
std::string LoopbackUrl(const std::string& host, int port, bool tls);

}  // namespace trainyard::app
