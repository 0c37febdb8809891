// A built-in algorithm job's output on its job page (issue #35): the framework, its runtime and
// Python versions and the model's path, from trainingOutput.builtInAlgorithmOutput, as
// `gcloud ai-platform jobs describe` shows them. Nothing for other jobs.

import { Child, h } from "./dom";
import { Job } from "./model";

interface BuiltInAlgorithmOutput {
  framework?: string;
  runtimeVersion?: string;
  pythonVersion?: string;
  modelPath?: string;
}

interface AlgorithmTrainingOutput {
  isBuiltInAlgorithmJob?: boolean;
  builtInAlgorithmOutput?: BuiltInAlgorithmOutput;
}

export function algorithmOutput(job: Job): Child {
  const output = job.trainingOutput as AlgorithmTrainingOutput | undefined;
  if (!output?.isBuiltInAlgorithmJob) return null;
  const algorithm = output.builtInAlgorithmOutput ?? {};
  const row = (label: string, id: string, value: string | undefined): Child =>
    value ? [h("dt", {}, label), h("dd", { id }, value)] : null;
  return h(
    "section",
    { class: "algorithm", id: "algorithm-output" },
    h("h3", {}, "Built-in algorithm"),
    h(
      "dl",
      {},
      row("Framework", "algorithm-framework", algorithm.framework),
      row("Runtime version", "algorithm-runtime", algorithm.runtimeVersion),
      row("Python version", "algorithm-python", algorithm.pythonVersion),
      row("Model", "algorithm-model", algorithm.modelPath),
    ),
  );
}
