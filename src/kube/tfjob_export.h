// Any trainyard job as a `kubeflow.org/v1` TFJob manifest (docs/reference/kubeflow-tfjob.md §11
// "Export"), for `kubectl apply -f` on a real cluster. Pure.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::kube {

// The TFJob YAML for `job` in `namespace_name`. The master becomes the Chief (AI Platform's
// "chief"), workers, parameter servers and evaluators Worker, PS and Evaluator, each the
// container `tensorflow` with the role's image, containerCommand as command, containerArgs as
// args, port tfjob-port 2222, its GPUs as `limits: nvidia.com/gpu` and a node selector
// `cloud.google.com/gke-accelerator: <type>`; restartPolicy the role's rule (OnFailure for an
// ml v1 job); runPolicy.cleanPodPolicy Running (everyone stops when the chief ends, as on AI
// Platform) and activeDeadlineSeconds from scheduling.maxRunningTime. What a TFJob has no field
// for (machine types, maxWaitTime, region, …) is said in `# trainyard:` comments at the top.
// A job that came from a TFJob gives back its stored document as v1 (run-policy fields nested,
// v1beta2's default cleanPodPolicy Running made explicit).
//
// FAILED_PRECONDITION when the job cannot be a TFJob at all: a Python-package job without an
// image (the error names packageUris and pythonModule and says to build a container image), a
// hyperparameter tuning job, TPUs, or an id that cannot become a Kubernetes name.
Result<std::string> ExportTFJob(const model::Job& job, std::string_view namespace_name);

}  // namespace trainyard::kube
