// The jobs page: the project's jobs as a table, filtered with the ml v1 list filter language
// (`state=RUNNING AND labels.team=vision`), a page at a time, refreshed every second and a half.

import { ApiError, call, enc } from "./api";
import { fill, h } from "./dom";
import { Job, gpusOf, jobDuration, kindOf, when } from "./model";
import { Page, href } from "./page";

const PAGE_SIZE = 20;

export function stateBadge(state: string): HTMLElement {
  return h("span", { class: "state state-" + state, "data-state": state }, state);
}

export function renderJobs(page: Page): void {
  const project = page.route.project;
  let filter = page.route.query.get("filter") ?? "";
  const tokens: string[] = [""]; // the page tokens of the pages seen; the last is the current one
  let next = "";

  const error = h("p", { class: "error", role: "alert" });
  const body = h("tbody");
  const pager = h("div", { class: "pager" });
  const input = h("input", {
    id: "filter",
    placeholder: 'filter, e.g. state=RUNNING AND labels.team="vision"',
    value: filter,
    size: 60,
  }) as HTMLInputElement;
  const form = h(
    "form",
    {
      class: "filter",
      onsubmit: (e: Event) => {
        e.preventDefault();
        filter = input.value.trim();
        tokens.splice(0, tokens.length, "");
        void load();
      },
    },
    input,
    h("button", { type: "submit" }, "Filter"),
  );
  fill(
    page.root,
    h("h1", {}, "Jobs"),
    form,
    error,
    h(
      "table",
      { class: "jobs" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Job", "Kind", "State", "Created", "Duration", "Labels", "Accelerators"].map((c) =>
            h("th", {}, c),
          ),
        ),
      ),
      body,
    ),
    pager,
  );

  async function load(): Promise<void> {
    const query = new URLSearchParams({ pageSize: String(PAGE_SIZE) });
    if (filter) query.set("filter", filter);
    const pageToken = tokens[tokens.length - 1];
    if (pageToken) query.set("pageToken", pageToken);
    let reply: { jobs?: Job[]; nextPageToken?: string };
    try {
      reply = await call("GET", `/v1/projects/${enc(project)}/jobs?${query}`);
    } catch (e) {
      fill(error, e instanceof ApiError ? e.message : String(e));
      return;
    }
    if (!page.live) return;
    fill(error);
    next = reply.nextPageToken ?? "";
    const jobs = reply.jobs ?? [];
    fill(
      body,
      jobs.length === 0 ? h("tr", {}, h("td", { colspan: 7, class: "empty" }, "No jobs.")) : null,
      jobs.map((job) =>
        h(
          "tr",
          { "data-job-id": job.jobId },
          h("td", {}, h("a", { href: href(project, "jobs", job.jobId) }, job.jobId)),
          h("td", {}, kindOf(job)),
          h("td", {}, stateBadge(job.state)),
          h("td", {}, when(job.createTime)),
          h("td", {}, jobDuration(job)),
          h(
            "td",
            {},
            Object.entries(job.labels ?? {}).map(([k, v]) =>
              h("span", { class: "label" }, `${k}=${v}`),
            ),
          ),
          h("td", {}, gpusOf(job)),
        ),
      ),
    );
    fill(
      pager,
      h(
        "button",
        {
          disabled: tokens.length === 1,
          onclick: () => {
            tokens.pop();
            void load();
          },
        },
        "‹ Previous",
      ),
      h("span", {}, ` page ${tokens.length} `),
      h(
        "button",
        {
          disabled: !next,
          onclick: () => {
            tokens.push(next);
            void load();
          },
        },
        "Next ›",
      ),
    );
  }

  page.every(1500, load);
}
