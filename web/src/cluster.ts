// The cluster page (trainyard v1 `…/cluster`): every node with its CPUs, memory and devices,
// which of this project's jobs holds each device, each project's quota, use, borrowed and share
// (projects.ts), and the queue in order with why each job waits.

import { call, enc } from "./api";
import { fill, h } from "./dom";
import { Page, href } from "./page";
import { ProjectStanding, projectsTable } from "./projects";

interface Holder {
  jobId?: string;
  taskName?: string;
  trialId?: string;
  otherProject?: boolean;
}
interface Device {
  index: number;
  accelerator: string;
  model: string;
  emulated: boolean;
  heldBy: Holder | null;
}
interface ClusterNode {
  name: string;
  cpus: number;
  memoryMib: number;
  labels: Record<string, string>;
  devices: Device[];
}
interface Cluster {
  nodes: ClusterNode[];
  queue: { jobId: string; position: number; reason: string }[];
  otherProjectsQueued: number;
  projects: ProjectStanding[];
}

export function renderCluster(page: Page): void {
  const project = page.route.project;
  const body = h("div");
  const error = h("p", { class: "error", role: "alert" });
  fill(page.root, h("h1", {}, "Cluster"), error, body);

  function holder(device: Device): HTMLElement {
    const held = device.heldBy;
    if (!held) return h("span", { class: "free" }, "free");
    if (held.otherProject) return h("span", { class: "other" }, "another project's job");
    return h(
      "span",
      { class: "held" },
      h("a", { href: href(project, "jobs", held.jobId ?? "") }, held.jobId),
      ` ${held.taskName ?? ""}${held.trialId ? ` (trial ${held.trialId})` : ""}`,
    );
  }

  page.every(1500, async () => {
    let cluster: Cluster;
    try {
      cluster = await call<Cluster>("GET", `/trainyard/v1/projects/${enc(project)}/cluster`);
    } catch (e) {
      fill(error, (e as Error).message);
      return;
    }
    if (!page.live) return;
    fill(error);
    fill(
      body,
      cluster.nodes.map((node) =>
        h(
          "section",
          { class: "node", "data-node": node.name },
          h("h2", {}, node.name),
          h(
            "p",
            {},
            `${node.cpus} CPUs, ${(node.memoryMib / 1024).toFixed(1)} GiB memory, ${node.devices.length} device${node.devices.length === 1 ? "" : "s"}`,
          ),
          node.devices.length
            ? h(
                "table",
                { class: "devices" },
                h(
                  "thead",
                  {},
                  h(
                    "tr",
                    {},
                    ["Device", "Accelerator", "Model", "Held by"].map((c) => h("th", {}, c)),
                  ),
                ),
                h(
                  "tbody",
                  {},
                  node.devices.map((d) =>
                    h(
                      "tr",
                      { "data-device": d.index, class: d.heldBy ? "busy" : "idle" },
                      h("td", {}, String(d.index)),
                      h("td", {}, d.accelerator || "(unknown)"),
                      h("td", {}, d.emulated ? "emulated" : d.model),
                      h("td", {}, holder(d)),
                    ),
                  ),
                ),
              )
            : null,
          h(
            "details",
            {},
            h("summary", {}, "Labels"),
            h(
              "ul",
              { class: "labels" },
              Object.entries(node.labels).map(([k, v]) => h("li", {}, h("code", {}, `${k}=${v}`))),
            ),
          ),
        ),
      ),
      h("h2", {}, "Projects"),
      projectsTable(cluster.projects ?? []),
      h("h2", {}, "Queue"),
      cluster.queue.length === 0
        ? h("p", { class: "empty", id: "queue-empty" }, "No job of this project waits.")
        : h(
            "table",
            { class: "queue", id: "queue" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ["Position", "Job", "Why it waits"].map((c) => h("th", {}, c)),
              ),
            ),
            h(
              "tbody",
              {},
              cluster.queue.map((q) =>
                h(
                  "tr",
                  { "data-job-id": q.jobId },
                  h("td", {}, String(q.position)),
                  h("td", {}, h("a", { href: href(project, "jobs", q.jobId) }, q.jobId)),
                  h("td", {}, q.reason),
                ),
              ),
            ),
          ),
      cluster.otherProjectsQueued
        ? h("p", {}, `${cluster.otherProjectsQueued} job(s) of other projects wait too.`)
        : null,
    );
  });
}
