// The cluster page's "Projects" table (issue #34): each project's quota, what it holds, what it
// borrows beyond its quota, its dominant share and weight (as the sharing pass counts them), and
// how many of its jobs wait.

import { h } from "./dom";

// What a project holds or borrows, as the cluster route answers it.
export interface Amounts {
  accelerators: Record<string, number>;
  cpus: number;
  memory: string; // a Kubernetes quantity, "30Gi"
  jobs: number;
}
export interface Quota {
  accelerators: Record<string, number>;
  cpus?: number;
  memory?: string;
  jobs?: number;
  weight: number;
}
export interface ProjectStanding {
  project: string;
  quota: Quota | null;
  use: Amounts;
  borrowed: Amounts;
  share: number; // 0..1, before the weight
  weight: number;
  waitingJobs: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

// One line per resource; `empty` when there is none.
function resources(items: string[], empty: string): HTMLElement {
  if (items.length === 0) return h("span", { class: "none" }, empty);
  return h(
    "ul",
    { class: "resources" },
    items.map((item) => h("li", {}, item)),
  );
}

function devices(accelerators: Record<string, number>, all: boolean): string[] {
  return Object.entries(accelerators)
    .filter(([, count]) => all || count > 0)
    .map(([type, count]) => `${count} × ${type}`);
}

// A quota's limits, each resource it names (a project without one has no limits: "—").
function quotaCell(quota: Quota | null): HTMLElement {
  if (!quota) return h("span", { class: "none" }, "—");
  const items = devices(quota.accelerators, true);
  if (quota.cpus !== undefined) items.push(plural(quota.cpus, "vCPU"));
  if (quota.memory !== undefined) items.push(`${quota.memory} memory`);
  if (quota.jobs !== undefined) items.push(plural(quota.jobs, "job"));
  return resources(items, "no limits");
}

// What is held or borrowed, leaving out what is 0.
function amountsCell(amounts: Amounts): HTMLElement {
  const items = devices(amounts.accelerators, false);
  if (amounts.cpus > 0) items.push(plural(amounts.cpus, "vCPU"));
  if (!/^0[A-Za-z]*$/.test(amounts.memory)) items.push(`${amounts.memory} memory`);
  if (amounts.jobs > 0) items.push(plural(amounts.jobs, "job"));
  return resources(items, "none");
}

// "33.3%", "100%".
export function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

export function projectsTable(projects: ProjectStanding[]): HTMLElement {
  if (projects.length === 0)
    return h(
      "p",
      { class: "empty", id: "projects-empty" },
      "No project has a quota or holds anything.",
    );
  const columns: [string, string][] = [
    ["project", "Project"],
    ["quota", "Quota"],
    ["use", "Use"],
    ["borrowed", "Borrowed"],
    ["share", "Share"],
    ["weight", "Weight"],
    ["waiting", "Waiting jobs"],
  ];
  return h(
    "table",
    { class: "projects", id: "projects" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        columns.map(([key, title]) => h("th", { "data-column": key }, title)),
      ),
    ),
    h(
      "tbody",
      {},
      projects.map((p) =>
        h(
          "tr",
          { "data-project": p.project },
          h("td", { "data-column": "project" }, p.project),
          h("td", { "data-column": "quota" }, quotaCell(p.quota)),
          h("td", { "data-column": "use" }, amountsCell(p.use)),
          h("td", { "data-column": "borrowed" }, amountsCell(p.borrowed)),
          h(
            "td",
            { "data-column": "share", title: "dominant share of the cluster, before the weight" },
            percent(p.share),
          ),
          h("td", { "data-column": "weight" }, String(p.weight)),
          h("td", { "data-column": "waiting" }, String(p.waitingJobs)),
        ),
      ),
    ),
  );
}
