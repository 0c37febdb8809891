// The buckets page (storage v1): the project's buckets, then a bucket's objects one "folder" at a
// time (prefix and delimiter "/"), each downloadable (fetched with the token, then saved).

import { call, download, enc } from "./api";
import { fill, h } from "./dom";
import { Page, href } from "./page";

interface StorageObject {
  name: string;
  size?: string;
  updated?: string;
  contentType?: string;
}

function link(project: string, bucket: string, prefix: string): string {
  return href(project, "buckets", bucket) + (prefix ? "?prefix=" + encodeURIComponent(prefix) : "");
}

async function save(bucket: string, name: string): Promise<void> {
  const blob = await download(`/download/storage/v1/b/${enc(bucket)}/o/${enc(name)}?alt=media`);
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: name.split("/").pop() ?? name }) as HTMLAnchorElement;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function renderBuckets(page: Page): void {
  const project = page.route.project;
  const bucket = page.route.path[1];
  const prefix = page.route.query.get("prefix") ?? "";
  const body = h("div");
  const error = h("p", { class: "error", role: "alert" });
  fill(page.root, h("h1", {}, bucket ? `gs://${bucket}/${prefix}` : "Buckets"), error, body);
  const fail = (e: unknown) => fill(error, (e as Error).message);

  if (!bucket) {
    call<{ items?: { name: string; timeCreated?: string }[] }>(
      "GET",
      `/storage/v1/b?project=${enc(project)}`,
    )
      .then((reply) =>
        fill(
          body,
          (reply.items ?? []).length === 0
            ? h("p", { class: "empty" }, "No buckets in this project.")
            : h(
                "ul",
                { class: "buckets" },
                (reply.items ?? []).map((b) =>
                  h("li", {}, h("a", { href: link(project, b.name, "") }, b.name)),
                ),
              ),
        ),
      )
      .catch(fail);
    return;
  }
  const parent = prefix.replace(/[^/]*\/$/, "");
  call<{ items?: StorageObject[]; prefixes?: string[] }>(
    "GET",
    `/storage/v1/b/${enc(bucket)}/o?delimiter=%2F&prefix=${enc(prefix)}`,
  )
    .then((reply) =>
      fill(
        body,
        h(
          "p",
          {},
          h(
            "a",
            { href: prefix ? link(project, bucket, parent) : href(project, "buckets") },
            "‹ up",
          ),
        ),
        h(
          "table",
          { class: "objects" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["Name", "Size", "Type", "Updated", ""].map((c) => h("th", {}, c)),
            ),
          ),
          h(
            "tbody",
            {},
            (reply.prefixes ?? []).map((p) =>
              h(
                "tr",
                {},
                h("td", {}, h("a", { href: link(project, bucket, p) }, p.slice(prefix.length))),
                h("td"),
                h("td", {}, "folder"),
                h("td"),
                h("td"),
              ),
            ),
            (reply.items ?? []).map((o) =>
              h(
                "tr",
                { "data-object": o.name },
                h("td", {}, o.name.slice(prefix.length)),
                h("td", {}, o.size ?? ""),
                h("td", {}, o.contentType ?? ""),
                h("td", {}, o.updated ? new Date(o.updated).toLocaleString() : ""),
                h(
                  "td",
                  {},
                  h(
                    "button",
                    { class: "link", onclick: () => save(bucket, o.name).catch(fail) },
                    "Download",
                  ),
                ),
              ),
            ),
          ),
        ),
      ),
    )
    .catch(fail);
}
