// A tuning job's study: the trials table (sortable by any column), the objective per trial with
// the best so far, each parameter against the objective, and every trial's intermediate metric
// curve (trainingOutput.trials[].allMetrics).

import { fill, h, s } from "./dom";
import { Job, Trial } from "./model";
import { PALETTE, chart, extent, polyline } from "./charts";

interface Sort {
  column: string;
  descending: boolean;
}
const sorts = new WeakMap<HTMLElement, Sort>();

function objective(t: Trial): number | undefined {
  const v = t.finalMetric?.objectiveValue;
  return v === undefined ? undefined : Number(v);
}

function cell(t: Trial, column: string): string | number {
  switch (column) {
    case "trial":
      return Number(t.trialId);
    case "objective":
      return objective(t) ?? NaN;
    case "step":
      return Number(t.finalMetric?.trainingStep ?? NaN);
    case "state":
      return t.state ?? "";
    case "stopped early":
      return t.isTrialStoppedEarly ? "yes" : "";
    default:
      return t.hyperparameters?.[column] ?? "";
  }
}

function compare(a: string | number, b: string | number): number {
  const na = Number(a);
  const nb = Number(b);
  if (a !== "" && b !== "" && !Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  return String(a).localeCompare(String(b));
}

function table(
  root: HTMLElement,
  trials: Trial[],
  params: string[],
  redraw: () => void,
): HTMLElement {
  const sort = sorts.get(root) ?? { column: "trial", descending: false };
  const columns = ["trial", ...params, "objective", "step", "state", "stopped early"];
  const rows = [...trials].sort(
    (a, b) => compare(cell(a, sort.column), cell(b, sort.column)) * (sort.descending ? -1 : 1),
  );
  return h(
    "table",
    { class: "trials", id: "trials" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        columns.map((c) =>
          h(
            "th",
            {
              class: "sortable",
              "data-column": c,
              onclick: () => {
                sorts.set(root, {
                  column: c,
                  descending: sort.column === c ? !sort.descending : false,
                });
                redraw();
              },
            },
            c,
            sort.column === c ? (sort.descending ? " ▼" : " ▲") : "",
          ),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((t) =>
        h(
          "tr",
          { "data-trial": t.trialId },
          columns.map((c) => {
            const v = cell(t, c);
            return h("td", {}, typeof v === "number" ? (Number.isNaN(v) ? "" : String(v)) : v);
          }),
        ),
      ),
    ),
  );
}

function objectiveChart(trials: Trial[], maximize: boolean, tag: string): SVGElement {
  const done = trials
    .filter((t) => objective(t) !== undefined)
    .sort((a, b) => Number(a.trialId) - Number(b.trialId));
  const [ymin, ymax] = extent(done.map((t) => objective(t)!));
  const [xmin, xmax] = extent(done.map((t) => Number(t.trialId)));
  let best: number | undefined;
  const bestLine: [number, number][] = [];
  return chart(
    "objective-chart",
    "objective per trial (line: best so far)",
    { label: "trial", min: xmin, max: xmax },
    { label: tag, min: ymin, max: ymax },
    (sx, sy) => {
      for (const t of done) {
        const v = objective(t)!;
        best = best === undefined ? v : maximize ? Math.max(best, v) : Math.min(best, v);
        bestLine.push([sx(Number(t.trialId)), sy(best)]);
      }
      return [
        polyline(bestLine, { class: "best", stroke: "#2ca02c", "stroke-width": "2" }),
        ...done.map((t) =>
          s(
            "circle",
            {
              class: "trial-point",
              "data-trial": t.trialId,
              cx: sx(Number(t.trialId)),
              cy: sy(objective(t)!),
              r: 4,
            },
            s("title", {}, `trial ${t.trialId}: ${objective(t)}`),
          ),
        ),
      ];
    },
  );
}

function paramCharts(trials: Trial[], params: string[], tag: string): SVGElement[] {
  const done = trials.filter((t) => objective(t) !== undefined);
  const [ymin, ymax] = extent(done.map((t) => objective(t)!));
  return params.map((param) => {
    const raw = done.map((t) => t.hyperparameters?.[param] ?? "");
    const numeric = raw.every((v) => v !== "" && !Number.isNaN(Number(v)));
    const categories = numeric ? [] : [...new Set(raw)].sort();
    const xs = raw.map((v) => (numeric ? Number(v) : categories.indexOf(v)));
    const [xmin, xmax] = extent(xs);
    const ticks = numeric ? undefined : categories.map((c, i) => ({ at: i, text: c }));
    return chart(
      `param-${param}`,
      `${param} against the objective`,
      { label: param, min: xmin, max: xmax, ticks },
      { label: tag, min: ymin, max: ymax },
      (sx, sy) =>
        done.map((t, i) =>
          s(
            "circle",
            { class: "param-point", cx: sx(xs[i]), cy: sy(objective(t)!), r: 4 },
            s("title", {}, `trial ${t.trialId}`),
          ),
        ),
    );
  });
}

function curvesChart(trials: Trial[], tag: string): SVGElement {
  const curves = trials
    .map((t) => ({
      t,
      points: (t.allMetrics ?? []).map(
        (m) => [Number(m.trainingStep ?? 0), Number(m.objectiveValue)] as [number, number],
      ),
    }))
    .filter((c) => c.points.length > 0);
  const all = curves.flatMap((c) => c.points);
  const [xmin, xmax] = extent(all.map((p) => p[0]));
  const [ymin, ymax] = extent(all.map((p) => p[1]));
  return chart(
    "curves-chart",
    "intermediate metric per trial",
    { label: "step", min: xmin, max: xmax },
    { label: tag, min: ymin, max: ymax },
    (sx, sy) =>
      curves.map((c, i) => {
        const color = PALETTE[i % PALETTE.length];
        const mapped = c.points
          .sort((a, b) => a[0] - b[0])
          .map(([x, y]) => [sx(x), sy(y)] as [number, number]);
        return s(
          "g",
          { class: "curve", "data-trial": c.t.trialId },
          polyline(mapped, { stroke: color, "stroke-width": "1.5" }),
          mapped.map(([x, y]) => s("circle", { cx: x, cy: y, r: 2, fill: color })),
          s("title", {}, `trial ${c.t.trialId}`),
        );
      }),
  );
}

export function renderStudy(root: HTMLElement, job: Job): void {
  const spec = job.trainingInput?.hyperparameters ?? {};
  const trials = job.trainingOutput?.trials ?? [];
  const params = (spec.params ?? []).map((p) => p.parameterName);
  const maximize = spec.goal !== "MINIMIZE";
  const tag = spec.hyperparameterMetricTag || "objective";
  const redraw = () => renderStudy(root, job);
  fill(
    root,
    h(
      "h2",
      {},
      `Study: ${trials.length} trial${trials.length === 1 ? "" : "s"}, ${maximize ? "maximize" : "minimize"} ${tag}`,
    ),
    table(root, trials, params, redraw),
    h(
      "div",
      { class: "charts" },
      objectiveChart(trials, maximize, tag),
      ...paramCharts(trials, params, tag),
      curvesChart(trials, tag),
    ),
  );
}
