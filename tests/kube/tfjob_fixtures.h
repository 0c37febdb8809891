// Manifests the kube tests share: a minimal valid TFJob as JSON text, built from a few knobs, and
// the reconstructed seed manifest of docs/reference/kubeflow-tfjob.md §9.
#pragma once

#include <string>
#include <string_view>

#include "kube/tfjob.h"

namespace trainyard::kube::testing {

// {"apiVersion": <version>, "kind": "TFJob", "metadata": {"name": "mnist", "namespace":
// "team-a"}, "spec": <spec>} with `spec` given as JSON text.
std::string Manifest(std::string_view spec, std::string_view version = "kubeflow.org/v1");

// A valid spec body: Chief x1 (1 GPU), Worker x2, PS x1, each the "tensorflow" container.
std::string ChiefWorkerPsSpec();

// The seed manifest (tests/kube/testdata/seed_v1beta2.json).
std::string SeedManifest();

// A valid TFJob value, decoded from Manifest(ChiefWorkerPsSpec()).
TFJob ValidTFJob();

}  // namespace trainyard::kube::testing
