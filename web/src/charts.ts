// Hand-written SVG charts: axes with a few ticks, points and lines. Small on purpose; the study
// page is their only user.

import { s } from "./dom";

export interface Axis {
  label: string;
  min: number;
  max: number;
  ticks?: { at: number; text: string }[]; // default: five evenly spaced numbers
}

export type Scale = (v: number) => number;

const W = 420;
const H = 260;
const M = { left: 56, right: 12, top: 28, bottom: 40 };

export const PALETTE = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
];

function padded(axis: Axis): [number, number] {
  if (axis.min === axis.max) return [axis.min - 1, axis.max + 1];
  const pad = (axis.max - axis.min) * 0.05;
  return [axis.min - pad, axis.max + pad];
}

function short(v: number): string {
  if (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e5)) return v.toExponential(1);
  return String(Number(v.toPrecision(3)));
}

// A chart of `x` against `y`; `draw` adds its marks given the two scales.
export function chart(
  id: string,
  title: string,
  x: Axis,
  y: Axis,
  draw: (sx: Scale, sy: Scale) => SVGElement[],
): SVGElement {
  const [x0, x1] = padded(x);
  const [y0, y1] = padded(y);
  const sx: Scale = (v) => M.left + ((v - x0) / (x1 - x0)) * (W - M.left - M.right);
  const sy: Scale = (v) => H - M.bottom - ((v - y0) / (y1 - y0)) * (H - M.top - M.bottom);
  const ticks = (axis: Axis) =>
    axis.ticks ??
    [0, 1, 2, 3, 4].map((i) => {
      const at = axis.min + ((axis.max - axis.min) * i) / 4;
      return { at, text: short(at) };
    });
  return s(
    "svg",
    {
      id,
      class: "chart",
      viewBox: `0 0 ${W} ${H}`,
      width: W,
      height: H,
      role: "img",
      "aria-label": title,
    },
    s("title", {}, title),
    s("text", { x: M.left, y: 16, class: "chart-title" }, title),
    s("line", { x1: M.left, y1: H - M.bottom, x2: W - M.right, y2: H - M.bottom, class: "axis" }),
    s("line", { x1: M.left, y1: M.top, x2: M.left, y2: H - M.bottom, class: "axis" }),
    ticks(x).map((t) =>
      s(
        "text",
        { x: sx(t.at), y: H - M.bottom + 14, class: "tick", "text-anchor": "middle" },
        t.text,
      ),
    ),
    ticks(y).map((t) => [
      s("text", { x: M.left - 4, y: sy(t.at) + 4, class: "tick", "text-anchor": "end" }, t.text),
      s("line", { x1: M.left, y1: sy(t.at), x2: W - M.right, y2: sy(t.at), class: "grid" }),
    ]),
    s(
      "text",
      { x: (M.left + W - M.right) / 2, y: H - 6, class: "axis-label", "text-anchor": "middle" },
      x.label,
    ),
    s(
      "text",
      {
        x: 12,
        y: (M.top + H - M.bottom) / 2,
        class: "axis-label",
        "text-anchor": "middle",
        transform: `rotate(-90 12 ${(M.top + H - M.bottom) / 2})`,
      },
      y.label,
    ),
    draw(sx, sy),
  );
}

export function polyline(points: [number, number][], attrs: Record<string, string>): SVGElement {
  return s("polyline", {
    points: points.map(([x, y]) => `${x},${y}`).join(" "),
    fill: "none",
    ...attrs,
  });
}

export function extent(values: number[]): [number, number] {
  return values.length ? [Math.min(...values), Math.max(...values)] : [0, 1];
}
