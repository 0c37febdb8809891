// A job's suspension and preemption on its page (issue #34): what its state means now
// ("suspended", or "preempted: " and why it waits, from the cluster view's queue), and the
// Suspend and Resume buttons (trainyard v1 `jobs/{j}:suspend`, `:resume`), offered only to a
// caller who holds ml.jobs.suspend in the project.

import { call, enc, may } from "./api";
import { h } from "./dom";
import { Job, TERMINAL } from "./model";

export interface Standing {
  suspended: boolean;
  preempted: boolean; // put back in the queue by the scheduler since it last started
  reason?: string; // why it waits, while QUEUED (the cluster view's queue)
  maySuspend: boolean;
}

// The newest service message of the job whose text has `words`, as its timestamp.
async function newest(project: string, jobId: string, words: string): Promise<string | undefined> {
  const reply = await call<{ entries?: { timestamp: string }[] }>("POST", "/v2/entries:list", {
    resourceNames: [`projects/${project}`],
    filter: `resource.labels.job_id="${jobId}" AND resource.labels.task_name="service" AND jsonPayload.message:"${words}"`,
    orderBy: "timestamp desc",
    pageSize: 1,
  });
  return reply.entries?.[0]?.timestamp;
}

// The job's standing; none for an ended job.
export async function standingOf(project: string, job: Job): Promise<Standing | null> {
  if (TERMINAL.includes(job.state)) return null;
  const base = `/trainyard/v1/projects/${enc(project)}`;
  const [suspension, maySuspend] = await Promise.all([
    call<{ suspended?: boolean }>("GET", `${base}/jobs/${enc(job.jobId)}/suspension`),
    may(project, "ml.jobs.suspend"),
  ]);
  const standing: Standing = { suspended: !!suspension.suspended, preempted: false, maySuspend };
  if (job.state !== "QUEUED" || standing.suspended) return standing;
  const [cluster, preempted, started] = await Promise.all([
    call<{ queue?: { jobId: string; reason: string }[] }>("GET", `${base}/cluster`),
    newest(project, job.jobId, "was preempted"),
    newest(project, job.jobId, "Started "),
  ]);
  standing.reason = cluster.queue?.find((q) => q.jobId === job.jobId)?.reason;
  standing.preempted =
    preempted !== undefined &&
    (started === undefined || Date.parse(preempted) >= Date.parse(started));
  return standing;
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

// "suspended", "preempted: waiting for room: …", or why a queued job waits, as the summary's
// "Standing" row; none otherwise.
export function standingView(standing: Standing | null): HTMLElement[] | null {
  if (!standing) return null;
  const row = (kind: string, text: string) => [
    h("dt", {}, "Standing"),
    h("dd", { id: "job-standing", "data-standing": kind }, text),
  ];
  if (standing.suspended) return row("suspended", "suspended");
  if (standing.preempted)
    return row(
      "preempted",
      "preempted: " + (standing.reason ? lowerFirst(standing.reason) : "waiting to be placed"),
    );
  return standing.reason ? row("waiting", standing.reason) : null;
}

// Suspend (a job not suspended) or Resume (a suspended one), when the caller may.
export function suspendButton(
  standing: Standing | null,
  act: (verb: "suspend" | "resume") => void,
): HTMLElement | null {
  if (!standing?.maySuspend) return null;
  return standing.suspended
    ? h("button", { id: "resume", onclick: () => act("resume") }, "Resume")
    : h("button", { id: "suspend", onclick: () => act("suspend") }, "Suspend");
}
