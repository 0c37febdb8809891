// A job's logs (logging v2 entries:list, as `gcloud ai-platform jobs stream-logs` reads them),
// filtered by task and severity; in follow mode the page asks every second for what came after
// the last timestamp it has, dropping entries it already shows (by insertId).

import { call } from "./api";
import { fill, h } from "./dom";
import { Job, TERMINAL } from "./model";
import { Page } from "./page";

interface LogEntry {
  insertId: string;
  timestamp: string;
  severity?: string;
  textPayload?: string;
  jsonPayload?: { message?: string };
  resource?: { labels?: Record<string, string> };
  labels?: Record<string, string>;
}

const SEVERITIES = ["DEFAULT", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"];
const MAX_SHOWN = 5000;

export function renderLogs(page: Page, root: HTMLElement, job: Job): void {
  const project = page.route.project;
  const tasks = new Set<string>();
  let seen = new Set<string>();
  let since = "";
  let generation = 0; // bumped when the filters change, so an old answer is dropped

  const lines = h("div", { class: "log-lines", id: "log-lines" });
  const taskSelect = h(
    "select",
    { id: "log-task", "aria-label": "task" },
    h("option", { value: "" }, "every task"),
  ) as HTMLSelectElement;
  const severitySelect = h(
    "select",
    { id: "log-severity", "aria-label": "severity" },
    SEVERITIES.map((s) => h("option", { value: s }, s === "DEFAULT" ? "any severity" : "≥ " + s)),
  ) as HTMLSelectElement;
  const follow = h("input", {
    type: "checkbox",
    id: "log-follow",
    checked: !TERMINAL.includes(job.state),
  }) as HTMLInputElement;
  const reset = () => {
    generation++;
    seen = new Set();
    since = "";
    fill(lines);
    void poll();
  };
  taskSelect.addEventListener("change", reset);
  severitySelect.addEventListener("change", reset);
  follow.addEventListener("change", () => void poll());
  fill(
    root,
    h("h2", {}, "Logs"),
    h(
      "div",
      { class: "log-controls" },
      taskSelect,
      severitySelect,
      h("label", {}, follow, " follow"),
    ),
    lines,
  );

  function filter(): string {
    const parts = [`resource.labels.job_id="${job.jobId}"`];
    if (taskSelect.value) parts.push(`resource.labels.task_name="${taskSelect.value}"`);
    if (severitySelect.value !== "DEFAULT") parts.push(`severity>=${severitySelect.value}`);
    if (since) parts.push(`timestamp>="${since}"`);
    return parts.join(" AND ");
  }

  function addTask(task: string): void {
    if (!task || tasks.has(task)) return;
    tasks.add(task);
    taskSelect.appendChild(h("option", { value: task }, task));
  }

  async function poll(): Promise<void> {
    const mine = generation;
    let pageToken = "";
    const atBottom = lines.scrollHeight - lines.scrollTop - lines.clientHeight < 40;
    do {
      const body: Record<string, unknown> = {
        resourceNames: [`projects/${project}`],
        filter: filter(),
        orderBy: "timestamp asc",
        pageSize: 1000,
      };
      if (pageToken) body.pageToken = pageToken;
      const reply = await call<{ entries?: LogEntry[]; nextPageToken?: string }>(
        "POST",
        "/v2/entries:list",
        body,
      );
      if (mine !== generation || !page.live) return;
      for (const entry of reply.entries ?? []) {
        if (seen.has(entry.insertId)) continue;
        seen.add(entry.insertId);
        since = entry.timestamp;
        const task = entry.resource?.labels?.task_name ?? "";
        addTask(task);
        const severity = entry.severity ?? "DEFAULT";
        lines.appendChild(
          h(
            "div",
            { class: "log-line sev-" + severity },
            h("time", {}, entry.timestamp.replace("T", " ").replace(/\.(\d{3})\d*Z$/, ".$1")),
            h("span", { class: "task" }, task),
            h("span", { class: "sev" }, severity),
            h("span", { class: "text" }, entry.textPayload ?? entry.jsonPayload?.message ?? ""),
          ),
        );
      }
      pageToken = reply.nextPageToken ?? "";
    } while (pageToken);
    while (lines.childElementCount > MAX_SHOWN) lines.firstElementChild?.remove();
    if (follow.checked && atBottom) lines.scrollTop = lines.scrollHeight;
  }

  page.every(1000, async () => {
    if (follow.checked || seen.size === 0) await poll();
  });
}
