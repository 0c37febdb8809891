// The console's shell: the top bar (project, pages, sign-in) and the router over the URL's
// fragment, "#/p/<project>/<page>/…". Each page lives in its own module.

import { caller, forgetCaller, setOnUnauthenticated, setToken, token } from "./api";
import { h, fill } from "./dom";
import { Page, Route, href } from "./page";
import { renderJobs } from "./jobs";
import { renderJob } from "./job";
import { renderCluster } from "./cluster";
import { renderBuckets } from "./buckets";
import { renderSignIn } from "./signin";

// The last project opened, kept between visits (localStorage): a bare /console/ opens it.
const PROJECT_KEY = "trainyard.project";
let current: Page | null = null;

function parse(): Route | null {
  const hash = location.hash.replace(/^#\/?/, "");
  const [pathPart, queryPart] = hash.split("?", 2);
  const parts = pathPart
    .split("/")
    .filter((p) => p !== "")
    .map(decodeURIComponent);
  if (parts[0] !== "p" || parts.length < 2) return null;
  return { project: parts[1], path: parts.slice(2), query: new URLSearchParams(queryPart ?? "") };
}

// Another project than those offered, for a caller who may see every project.
const OTHER = "…"; // no project id has it

// The header's project select: the projects the caller may see (trainyard v1 caller: a token's
// own projects; without tokens or for an admin, those holding jobs or buckets, and "default"),
// the current one first until they are known. Picking one opens the same page there, which the
// next visit opens too.
function projectPicker(route: Route): HTMLSelectElement {
  const page = route.path[0] ?? "jobs";
  const option = (p: string) => h("option", { value: p, selected: p === route.project }, p);
  const select = h(
    "select",
    {
      id: "project",
      "aria-label": "project",
      onchange: () => {
        let chosen: string | null = select.value;
        if (chosen === OTHER) chosen = prompt("Project id")?.trim() || null;
        if (chosen && chosen !== route.project) location.hash = href(chosen, page);
        else select.value = route.project;
      },
    },
    option(route.project),
  ) as HTMLSelectElement;
  forgetCaller(); // asked afresh on each page: projects come and go
  caller()
    .then((who) => {
      const projects = who.projects.includes(route.project)
        ? who.projects
        : [route.project, ...who.projects];
      const options = projects.map(option);
      if (who.allProjects) options.push(h("option", { value: OTHER }, "other…"));
      fill(select, ...options);
      select.value = route.project;
      if (who.grants.length)
        select.title = `${who.name}: ${who.grants.map((g) => `${g.role} on ${g.project || "every project"}`).join(", ")}`;
    })
    .catch(() => {});
  return select;
}

function nav(route: Route): HTMLElement {
  const links: [string, string][] = [
    ["jobs", "Jobs"],
    ["cluster", "Cluster"],
    ["buckets", "Buckets"],
  ];
  const projectLabel = h("label", {}, "project ", projectPicker(route));
  return h(
    "nav",
    {},
    h("a", { class: "brand", href: href(route.project, "jobs") }, "trainyard"),
    projectLabel,
    links.map(([page, label]) =>
      h(
        "a",
        { href: href(route.project, page), class: route.path[0] === page ? "current" : "" },
        label,
      ),
    ),
    h("span", { class: "spacer" }),
    token()
      ? h(
          "button",
          {
            class: "link",
            onclick: () => {
              setToken(null);
              location.hash = "#/signin";
            },
          },
          "Sign out",
        )
      : h("a", { href: "#/signin" }, "Sign in"),
  );
}

function show(): void {
  current?.close();
  const app = document.getElementById("app")!;
  if (location.hash.startsWith("#/signin")) {
    const root = h("main");
    fill(app, root);
    current = new Page(root, { project: "", path: ["signin"], query: new URLSearchParams() });
    renderSignIn(current, localStorage.getItem(PROJECT_KEY) ?? "");
    return;
  }
  const route = parse();
  if (!route) {
    location.replace(href(localStorage.getItem(PROJECT_KEY) ?? "default", "jobs"));
    return;
  }
  localStorage.setItem(PROJECT_KEY, route.project);
  const root = h("main");
  fill(app, nav(route), root);
  const page = new Page(root, route);
  current = page;
  switch (route.path[0]) {
    case "jobs":
      if (route.path.length > 1) renderJob(page, route.path[1]);
      else renderJobs(page);
      break;
    case "cluster":
      renderCluster(page);
      break;
    case "buckets":
      renderBuckets(page);
      break;
    default:
      location.replace(href(route.project, "jobs"));
  }
}

setOnUnauthenticated(() => {
  if (!location.hash.startsWith("#/signin")) location.hash = "#/signin";
});
window.addEventListener("hashchange", show);
show();
