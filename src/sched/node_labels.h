// Node labels as Kubernetes has them, so that a TFJob's `nodeSelector`
// (docs/reference/kubeflow-tfjob.md §8) picks nodes here as it would on a cluster: the label syntax
// an operator's cluster file is held to, and the well-known labels trainyard gives every node
// itself. Pure.
#pragma once

#include <string_view>

#include "catalog/catalog.h"
#include "sched/inventory.h"

namespace trainyard::sched {

// The Kubernetes (GOARCH) name of the architecture trainyard was built for: every node's
// `kubernetes.io/arch` unless the cluster file declares another (a remote node may differ).
#if defined(__x86_64__)
inline constexpr std::string_view kBuildArch = "amd64";
#elif defined(__aarch64__)
inline constexpr std::string_view kBuildArch = "arm64";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
inline constexpr std::string_view kBuildArch = "ppc64le";
#elif defined(__s390x__)
inline constexpr std::string_view kBuildArch = "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
inline constexpr std::string_view kBuildArch = "riscv64";
#else
#error "no Kubernetes architecture name for this target: add it to kBuildArch"
#endif

// Kubernetes label syntax. A key is an optional prefix, a DNS subdomain (lower-case letters,
// digits, '-' and '.', at most 253) and '/', then a name: 1 to 63 letters, digits, '-', '_' and
// '.', starting and ending with a letter or digit. A value is such a name, or empty.
bool IsLabelKey(std::string_view key);
bool IsLabelValue(std::string_view value);

// `node` with the labels trainyard gives every node added where `node.labels` lacks the key, so
// an operator's own value wins:
//   kubernetes.io/hostname            the node's name
//   kubernetes.io/os                  linux
//   kubernetes.io/arch                `arch` (kBuildArch)
// and, when the node has an NVIDIA GPU (detected, declared or emulated), for its first GPU model
// in device order (a node of several models is labelled for the first; a selector on another
// model does not match it):
//   nvidia.com/gpu.present            true
//   nvidia.com/gpu.product            the model with each character a label cannot hold made
//                                     '-', as GPU feature discovery does ("Tesla-T4"; an emulated
//                                     device's is the catalog's display name, "NVIDIA-Tesla-T4")
//   nvidia.com/gpu.count              how many devices of that model the node has
//   cloud.google.com/gke-accelerator  the catalog type in GKE's spelling ("nvidia-tesla-t4");
//                                     none for a model the catalog lacks
// A device the catalog does not know came from nvidia-smi, so it is an NVIDIA GPU; TPUs get no
// label. Applied again after devices are added (emulation), it labels a node that had no GPU
// and leaves the labels of one that had.
Node WithWellKnownLabels(Node node, const catalog::Catalog& catalog, std::string_view arch);

}  // namespace trainyard::sched
