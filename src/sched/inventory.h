// What the machines trainyard places replicas on have: CPUs, memory, accelerators and labels.
//
// The local node is detected at start (sched/host_inventory.h) or described by an operator's
// cluster file (ParseClusterFile). Accelerators are catalog names ("NVIDIA_TESLA_T4"), so a job's
// `acceleratorConfig.type` is matched against real devices by name; labels are Kubernetes node
// labels, so a TFJob's `nodeSelector` is matched against them. Value types; no IO.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"

namespace trainyard::sched {

struct Device {
  int index = 0;            // the CUDA/TPU device index a replica is given (CUDA_VISIBLE_DEVICES)
  std::string accelerator;  // catalog name, "NVIDIA_TESLA_T4"; "" for a model the catalog lacks
  std::string model;        // as the driver names it ("Tesla T4"), or "emulated"
  bool emulated = false;    // counts against requests but is no real device
};

struct Node {
  std::string name;  // "localhost" for the detected machine
  int cpus = 0;
  std::int64_t memory_mib = 0;
  std::vector<Device> devices;
  // Kubernetes node labels: the cluster file's, then the well-known ones trainyard sets where
  // those lack the key (sched/node_labels.h), so every node built here has them.
  std::map<std::string, std::string> labels = {};

  // How many devices of `accelerator` the node has.
  int CountOf(std::string_view accelerator) const;
  // Whether every pair of `selector` is one of the node's labels (an empty selector: yes).
  bool HasLabels(const std::map<std::string, std::string>& selector) const;
};

struct Inventory {
  std::vector<Node> nodes;
};

// An operator's cluster file (YAML), replacing detection:
//
//   nodes:
//     - name: box1            # required, unique
//       cpus: 32              # required, > 0
//       memory: 128Gi         # required: a whole number with Mi/Gi/Ti, or of MiB; > 0
//       accelerators:         # optional: type -> count (> 0), indices 0.. in this order
//         NVIDIA_TESLA_T4: 4
//       emulated: true        # optional: these accelerators are emulated (no real devices)
//       labels:               # optional: Kubernetes node labels, for TFJobs' nodeSelector
//         nvidia: t4
//         example.com/rack: r12
//
// A device's `model` is the catalog's display name ("emulated" when emulated). Each node also
// gets the well-known labels (WithWellKnownLabels, with kBuildArch) its `labels` do not set.
// INVALID_ARGUMENT with a violation per problem, each naming its path ("nodes[1].memory"), for
// unknown or repeated keys, missing/invalid values, duplicate node names, accelerator types
// the catalog does not know, and label keys or values outside Kubernetes' syntax
// ("nodes[0].labels.nvidia/"). A file that is not YAML is INVALID_ARGUMENT naming the line.
Result<Inventory> ParseClusterFile(std::string_view yaml_text, const catalog::Catalog& catalog);

// `node` plus `per_type` emulated devices of every accelerator in the catalog (GPUs and TPUs),
// in catalog order, numbered after the node's highest device index (model "emulated"), and the
// well-known labels then (a node without GPUs gets the first emulated GPU's). Used by
// `trainyard serve --accelerator-emulation`.
Node WithEmulatedAccelerators(Node node, const catalog::Catalog& catalog, int per_type);

}  // namespace trainyard::sched
