// Sign-in for a server run with `--auth tokens`: the token (from `trainyard auth create-token`)
// is kept in this tab's sessionStorage only and sent as `Authorization: Bearer`. It is checked
// by asking who it stands for (its projects: the console offers only those) and reading the
// project's jobs before the console opens it.

import { ApiError, call, caller, enc, setToken } from "./api";
import { fill, h } from "./dom";
import { Page, href } from "./page";

export function renderSignIn(page: Page, lastProject: string): void {
  const tokenInput = h("input", {
    id: "token",
    type: "password",
    size: 50,
    autocomplete: "off",
    placeholder: "ty_…",
  }) as HTMLInputElement;
  const projectInput = h("input", {
    id: "signin-project",
    size: 30,
    value: lastProject,
    placeholder: "the token's first project",
  }) as HTMLInputElement;
  const error = h("p", { class: "error", role: "alert" });
  fill(
    page.root,
    h("h1", {}, "Sign in to trainyard"),
    h(
      "form",
      {
        class: "signin",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          setToken(tokenInput.value.trim());
          try {
            // A token scoped to projects opens its first one unless another is named.
            const who = await caller();
            const granted = who.grants.map((g) => g.project).filter((p) => p);
            const project = projectInput.value.trim() || granted[0] || "default";
            await call("GET", `/v1/projects/${enc(project)}/jobs?pageSize=1`);
            location.hash = href(project, "jobs");
          } catch (err) {
            if ((err as ApiError).status === 401) setToken(null);
            fill(error, (err as Error).message);
          }
        },
      },
      h("label", {}, "Token ", tokenInput),
      h("label", {}, "Project ", projectInput),
      h("button", { type: "submit", class: "primary" }, "Sign in"),
    ),
    error,
    h(
      "p",
      { class: "hint" },
      "An administrator makes tokens with ",
      h("code", {}, "trainyard auth create-token"),
      ".",
    ),
  );
}
