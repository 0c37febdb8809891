// What trainingOutput says of a built-in algorithm's job (docs/reference/ai-platform-training.md
// §2.5, §12): `isBuiltInAlgorithmJob` and `builtInAlgorithmOutput` (framework, runtime and Python
// versions from algorithms/data/builtin_algorithms.json) from its submission, and `modelPath`
// (`<jobDir>/model`, where the algorithm writes it) once it has SUCCEEDED, for a job that is not
// a tuning job; in a tuning job each trial that has SUCCEEDED gets its own builtInAlgorithmOutput
// with the modelPath it wrote, `<jobDir>/<trial>/model`, and the job's has none. Pure.
#pragma once

#include "model/job.h"

namespace trainyard::control {

// Marks a job whose master image is a built-in algorithm this server runs; others are unchanged.
void MarkBuiltInAlgorithm(model::Job& job);

// `next`, a change of `previous`, gets its modelPath when it is the change to SUCCEEDED of a
// marked job (MarkBuiltInAlgorithm) without hyperparameters; in a marked tuning job, every trial
// that has SUCCEEDED and has no builtInAlgorithmOutput yet gets one.
void CompleteAlgorithmOutput(const model::Job& previous, model::Job& next);

}  // namespace trainyard::control
