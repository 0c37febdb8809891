// The console's shell: the top bar (project, pages, sign-in) and the router over the URL's
// fragment, "#/p/<project>/<page>/…". Each page lives in its own module.

import { caller, setOnUnauthenticated, setToken, token } from "./api";
import { h, fill } from "./dom";
import { Page, Route, href } from "./page";
import { renderJobs } from "./jobs";
import { renderJob } from "./job";
import { renderCluster } from "./cluster";
import { renderBuckets } from "./buckets";
import { renderSignIn } from "./signin";

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

function nav(route: Route): HTMLElement {
  const links: [string, string][] = [
    ["jobs", "Jobs"],
    ["cluster", "Cluster"],
    ["buckets", "Buckets"],
  ];
  const projectInput = h("input", {
    id: "project",
    value: route.project,
    "aria-label": "project",
    size: 18,
    onchange: (e: Event) => {
      const value = (e.target as HTMLInputElement).value.trim();
      if (value) location.hash = href(value, route.path[0] ?? "jobs");
    },
  });
  const projectLabel = h("label", {}, "project ", projectInput);
  // A token scoped to some projects: offer only those.
  caller()
    .then((who) => {
      const projects = [...new Set(who.grants.map((g) => g.project).filter((p) => p))];
      if (who.allProjects || projects.length === 0) return;
      if (!projects.includes(route.project)) projects.unshift(route.project);
      const select = h(
        "select",
        {
          id: "project",
          "aria-label": "project",
          onchange: (e: Event) =>
            (location.hash = href((e.target as HTMLSelectElement).value, route.path[0] ?? "jobs")),
        },
        projects.map((p) => h("option", { value: p, selected: p === route.project }, p)),
      );
      projectInput.replaceWith(select);
      projectLabel.title = `${who.name}: ${who.grants.map((g) => `${g.role} on ${g.project}`).join(", ")}`;
    })
    .catch(() => {});
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
    renderSignIn(current, sessionStorage.getItem(PROJECT_KEY) ?? "");
    return;
  }
  const route = parse();
  if (!route) {
    location.replace(href(sessionStorage.getItem(PROJECT_KEY) ?? "default", "jobs"));
    return;
  }
  sessionStorage.setItem(PROJECT_KEY, route.project);
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
