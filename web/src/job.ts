// A job's page: its summary and state timeline, errorMessage when it failed, the request as
// YAML, its replicas (trainyard v1), live logs, cancel, "submit again", and for a tuning job its
// study (study.ts), for a built-in algorithm's its output (algorithm.ts), suspend and resume and
// whether it is suspended or preempted (suspend.ts). Refreshed every second while the job has not
// ended.

import { algorithmOutput } from "./algorithm";
import { ApiError, call, enc } from "./api";
import { fill, h } from "./dom";
import { stateBadge } from "./jobs";
import { renderLogs } from "./logs";
import { Job, TERMINAL, duration, gpusOf, kindOf, ms, requestOf, when } from "./model";
import { Page, href } from "./page";
import { renderStudy } from "./study";
import { Standing, standingOf, standingView, suspendButton } from "./suspend";
import { toYaml } from "./yaml";

interface Replica {
  taskName: string;
  trialId?: string;
  state: string;
  restarts: number;
  exitStatus?: string;
  node?: string;
  deviceIndices?: number[];
}

// The job's phases: queued from createTime, preparing from startTime (placed: staging, pulling),
// running from when every replica had started (`running`: the service's "Started N replicas."
// entry, as the job's own record has no such time), ended at endTime.
function timeline(job: Job, running: string | undefined): HTMLElement {
  const created = ms(job.createTime);
  const started = ms(job.startTime);
  const ran = ms(running);
  const ended = ms(job.endTime);
  const now = Date.now();
  const span = (from: number | undefined, to: number | undefined, label: string) =>
    from !== undefined ? `${label} ${duration((to ?? now) - from)}` : "";
  const steps: [string, string | undefined, string][] = [
    ["created", job.createTime, span(created, started ?? ended, "queued")],
    ["preparing", job.startTime, span(started, ran ?? ended, "preparing")],
    ["running", running, span(ran, ended, ended !== undefined ? "ran" : "running for")],
    [TERMINAL.includes(job.state) ? job.state.toLowerCase() : "ends", job.endTime, ""],
  ];
  return h(
    "ol",
    { class: "timeline" },
    steps.map(([label, time, span]) =>
      h(
        "li",
        { class: time ? "done" : "todo" },
        h("b", {}, label),
        h("span", {}, when(time) || "—"),
        span ? h("em", {}, span) : null,
      ),
    ),
  );
}

// EXITED in red when the replica did not exit 0.
function replicaBadge(r: Replica): HTMLElement {
  const badge = stateBadge(r.state);
  if (r.state === "EXITED" && r.exitStatus && r.exitStatus !== "exited with status 0")
    badge.classList.add("state-bad");
  return badge;
}

function replicaTable(replicas: Replica[]): HTMLElement {
  if (replicas.length === 0) return h("p", { class: "empty" }, "No replica has run.");
  return h(
    "table",
    { class: "replicas" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Task", "Trial", "State", "Restarts", "Node", "Devices", "Exit status"].map((c) =>
          h("th", {}, c),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      replicas.map((r) =>
        h(
          "tr",
          { "data-task": r.taskName },
          h("td", {}, r.taskName),
          h("td", {}, r.trialId ?? ""),
          h("td", {}, replicaBadge(r)),
          h("td", {}, r.restarts),
          h("td", {}, r.node ?? ""),
          h("td", {}, (r.deviceIndices ?? []).join(", ")),
          h("td", {}, r.exitStatus ?? ""),
        ),
      ),
    ),
  );
}

// "Submit again": the request in an editor, sent as a new job; the server's validation
// messages are shown next to it, field by field.
function resubmit(page: Page, job: Job): HTMLElement {
  const request = requestOf(job);
  request.jobId = job.jobId + "_again";
  const text = h("textarea", {
    id: "resubmit-text",
    rows: 18,
    cols: 90,
    spellcheck: false,
  }) as HTMLTextAreaElement;
  text.value = JSON.stringify(request, null, 2);
  const messages = h("div", { class: "error", role: "alert", id: "resubmit-errors" });
  const dialog = h(
    "dialog",
    { id: "resubmit" },
    h("h2", {}, "Submit again"),
    h("p", {}, "The request as JSON; change what you need (a new jobId at least)."),
    text,
    messages,
    h(
      "div",
      { class: "buttons" },
      h("button", { onclick: () => (dialog as HTMLDialogElement).close() }, "Close"),
      h(
        "button",
        {
          class: "primary",
          id: "resubmit-send",
          onclick: async () => {
            let body: { jobId?: string };
            try {
              body = JSON.parse(text.value);
            } catch (e) {
              fill(messages, "Not valid JSON: " + String(e));
              return;
            }
            try {
              await call("POST", `/v1/projects/${enc(page.route.project)}/jobs`, body);
              (dialog as HTMLDialogElement).close();
              location.hash = href(page.route.project, "jobs", body.jobId ?? "");
            } catch (e) {
              const error = e as ApiError;
              fill(
                messages,
                h("p", {}, error.message),
                h(
                  "ul",
                  {},
                  error.violations.map((v) =>
                    h("li", {}, h("code", {}, v.field), ": ", v.description),
                  ),
                ),
              );
            }
          },
        },
        "Submit",
      ),
    ),
  );
  return dialog;
}

export function renderJob(page: Page, jobId: string): void {
  const project = page.route.project;
  const base = `/v1/projects/${enc(project)}/jobs/${enc(jobId)}`;
  const summary = h("section", { class: "summary" });
  const replicas = h("section", {}, h("h2", {}, "Replicas"));
  const replicaBody = h("div");
  replicas.appendChild(replicaBody);
  const study = h("section", { class: "study" });
  const request = h("details", {}, h("summary", {}, "Request (YAML)"));
  const requestText = h("pre", { class: "yaml" });
  request.appendChild(requestText);
  const logs = h("section", { class: "logs" });
  const error = h("p", { class: "error", role: "alert" });
  // A refused suspend or resume, as the server words it; kept until the next one.
  const actionError = h("p", { class: "error", role: "alert", id: "action-error" });
  fill(
    page.root,
    h("h1", {}, "Job ", h("span", { id: "job-id" }, jobId)),
    error,
    actionError,
    summary,
    study,
    replicas,
    logs,
    request,
  );

  let last: Job | null = null;
  let lastStanding = "null";
  let dialog: HTMLDialogElement | null = null;
  let studyStarted = false;
  let runningSince: string | undefined;
  let runningAsked = false;

  // When the job's replicas had all started: the service's first "Started …" entry.
  async function findRunningSince(): Promise<void> {
    const reply = await call<{ entries?: { timestamp: string }[] }>("POST", "/v2/entries:list", {
      resourceNames: [`projects/${project}`],
      filter: `resource.labels.job_id="${jobId}" AND resource.labels.task_name="service" AND jsonPayload.message:"Started "`,
      orderBy: "timestamp asc",
      pageSize: 1,
    });
    runningSince = reply.entries?.[0]?.timestamp;
  }

  async function cancel(): Promise<void> {
    if (!confirm(`Cancel job ${jobId}?`)) return;
    try {
      await call("POST", `${base}:cancel`, {});
    } catch (e) {
      fill(error, (e as Error).message);
    }
  }

  async function suspendOrResume(verb: "suspend" | "resume"): Promise<void> {
    fill(actionError);
    try {
      await call("POST", `/trainyard${base}:${verb}`, {});
    } catch (e) {
      fill(actionError, (e as Error).message);
    }
  }

  function drawSummary(job: Job, standing: Standing | null): void {
    const running = !TERMINAL.includes(job.state) && job.state !== "CANCELLING";
    fill(
      summary,
      h(
        "dl",
        {},
        h("dt", {}, "State"),
        h("dd", { id: "job-state" }, stateBadge(job.state)),
        standingView(standing),
        h("dt", {}, "Kind"),
        h("dd", {}, kindOf(job)),
        h("dt", {}, "Accelerators"),
        h("dd", {}, gpusOf(job) || "none"),
        job.jobPosition && job.jobPosition !== "0"
          ? [h("dt", {}, "Queue position"), h("dd", {}, job.jobPosition)]
          : null,
        h("dt", {}, "Labels"),
        h(
          "dd",
          {},
          Object.entries(job.labels ?? {}).map(([k, v]) =>
            h("span", { class: "label" }, `${k}=${v}`),
          ),
        ),
        job.trainingOutput?.consumedMLUnits
          ? [h("dt", {}, "ML units"), h("dd", {}, job.trainingOutput.consumedMLUnits)]
          : null,
      ),
      algorithmOutput(job),
      job.state === "FAILED" && job.errorMessage
        ? h(
            "div",
            { class: "failure", id: "error-message", role: "alert" },
            h("b", {}, "Failed: "),
            h("pre", {}, job.errorMessage),
          )
        : null,
      timeline(job, runningSince),
      h(
        "div",
        { class: "buttons" },
        running
          ? h(
              "button",
              { class: "danger", id: "cancel", onclick: () => void cancel() },
              "Cancel job",
            )
          : null,
        running ? suspendButton(standing, (verb) => void suspendOrResume(verb)) : null,
        h("button", { id: "submit-again", onclick: () => dialog?.showModal() }, "Submit again"),
      ),
    );
  }

  async function load(): Promise<void> {
    let job: Job;
    try {
      job = await call<Job>("GET", base);
    } catch (e) {
      fill(error, (e as Error).message);
      return;
    }
    let standing: Standing | null = null;
    try {
      standing = await standingOf(project, job);
    } catch {
      // shown without: the job's own state is still right
    }
    if (!page.live) return;
    fill(error);
    const changed =
      JSON.stringify(job) !== JSON.stringify(last) || JSON.stringify(standing) !== lastStanding;
    // Asked until found while the job runs; once for an ended job (it may never have run).
    let found = false;
    if (
      job.startTime &&
      !runningSince &&
      job.state !== "PREPARING" &&
      !(TERMINAL.includes(job.state) && runningAsked)
    ) {
      runningAsked = true;
      await findRunningSince().catch(() => {});
      found = runningSince !== undefined;
    }
    if (changed || found) {
      if (!last) {
        dialog = resubmit(page, job) as HTMLDialogElement;
        page.root.appendChild(dialog);
        renderLogs(page, logs, job);
      }
      drawSummary(job, standing);
      requestText.textContent = toYaml(requestOf(job));
      if (job.trainingInput?.hyperparameters) {
        if (!studyStarted) studyStarted = true;
        renderStudy(study, job);
      }
      last = job;
      lastStanding = JSON.stringify(standing);
    }
    try {
      // An ended job's replicas are those its last run left (how each ended).
      const reply = await call<{ replicas?: Replica[] }>(
        "GET",
        `/trainyard/v1/projects/${enc(project)}/jobs/${enc(jobId)}/replicas?includeEnded=true`,
      );
      fill(replicaBody, replicaTable(reply.replicas ?? []));
    } catch (e) {
      fill(replicaBody, h("p", { class: "empty" }, (e as Error).message));
    }
  }
  page.every(1000, load);
}
