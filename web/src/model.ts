// The ml v1 Job as the console reads it (only the fields it shows), and small facts derived from
// it: its kind, its GPUs, its phases' durations.

export interface AcceleratorConfig {
  count?: string | number;
  type?: string;
}
export interface ReplicaConfig {
  acceleratorConfig?: AcceleratorConfig;
  imageUri?: string;
}
export interface Metric {
  trainingStep?: string;
  objectiveValue?: number;
}
export interface Trial {
  trialId: string;
  hyperparameters?: Record<string, string>;
  finalMetric?: Metric;
  allMetrics?: Metric[];
  state?: string;
  isTrialStoppedEarly?: boolean;
  startTime?: string;
  endTime?: string;
}
export interface Hyperparameters {
  goal?: string;
  hyperparameterMetricTag?: string;
  maxTrials?: number;
  params?: { parameterName: string; type: string }[];
}
export interface TrainingInput {
  scaleTier?: string;
  masterType?: string;
  masterConfig?: ReplicaConfig;
  workerCount?: string | number;
  workerConfig?: ReplicaConfig;
  parameterServerCount?: string | number;
  parameterServerConfig?: ReplicaConfig;
  evaluatorCount?: string | number;
  evaluatorConfig?: ReplicaConfig;
  hyperparameters?: Hyperparameters;
  [key: string]: unknown;
}
export interface Job {
  jobId: string;
  state: string;
  createTime?: string;
  startTime?: string;
  endTime?: string;
  errorMessage?: string;
  labels?: Record<string, string>;
  trainingInput?: TrainingInput;
  trainingOutput?: { trials?: Trial[]; completedTrialCount?: string; consumedMLUnits?: number };
  jobPosition?: string;
  etag?: string;
}

export const TERMINAL = ["SUCCEEDED", "FAILED", "CANCELLED"];

export function kindOf(job: Job): string {
  const input = job.trainingInput;
  if (!input) return "prediction";
  if (input.hyperparameters) return "tuning";
  const images = [input.masterConfig, input.workerConfig, input.parameterServerConfig].some(
    (c) => c?.imageUri,
  );
  return images ? "container" : "training";
}

function count(value: string | number | undefined): number {
  return Number(value ?? 0) || 0;
}

// The GPUs (or TPUs) the request asks for, per replica config: "1 × NVIDIA_TESLA_T4".
export function gpusOf(job: Job): string {
  const input = job.trainingInput;
  if (!input) return "";
  const totals = new Map<string, number>();
  const add = (config: ReplicaConfig | undefined, replicas: number) => {
    const a = config?.acceleratorConfig;
    if (!a || !a.type || replicas === 0) return;
    totals.set(a.type, (totals.get(a.type) ?? 0) + count(a.count) * replicas);
  };
  add(input.masterConfig, 1);
  add(input.workerConfig ?? input.masterConfig, count(input.workerCount));
  add(input.parameterServerConfig, count(input.parameterServerCount));
  add(input.evaluatorConfig, count(input.evaluatorCount));
  return [...totals].map(([type, n]) => `${n} × ${type}`).join(", ");
}

export function ms(time: string | undefined): number | undefined {
  return time ? Date.parse(time) : undefined;
}

// "1 h 2 min", "3 min 4 s", "5.2 s".
export function duration(milliseconds: number): string {
  const s = milliseconds / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 3600)
    return `${Math.floor(s / 60) ? Math.floor(s / 60) + " min " : ""}${Math.floor(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function jobDuration(job: Job, now = Date.now()): string {
  const start = ms(job.createTime);
  if (start === undefined) return "";
  return duration((ms(job.endTime) ?? now) - start);
}

export function when(time: string | undefined): string {
  if (!time) return "";
  const d = new Date(time);
  return d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
}

// The request as it was submitted (what "submit again" starts from).
export function requestOf(job: Job): Record<string, unknown> {
  const request: Record<string, unknown> = { jobId: job.jobId };
  if (job.labels) request.labels = job.labels;
  if (job.trainingInput) request.trainingInput = job.trainingInput;
  return request;
}
