"""Draws the latency distributions of one bench/run (matplotlib, installed by bench/run).

    plot.py WORK_DIR OUT.png

Four panels from WORK_DIR/{trivial,distributed,burst}.json: the trivial job end to end per path,
the distributed job end to end per path (each run a dot, with its box), trainyard's own
submit -> exec latency of the /bin/date jobs (cumulative distribution of each interval), and the
per-job latency of every job of the bursts (cumulative).
"""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

LABELS = {
    "trainyard-package-first": "trainyard\n(new sdist, installed)",
    "trainyard-wheel-first": "trainyard\n(new wheel, unpacked)",
    "trainyard-package": "trainyard\n(package resubmitted)",
    "trainyard-command": "trainyard\n(command, no staging)",
    "gcloud": "gcloud ai-platform\nlocal train",
    "sbatch-wait": "sbatch --wait",
    "sbatch-poll": "sbatch + squeue\nevery 20 ms",
    "direct": "python3 -m\n(direct, floor)",
}


def load(work, name):
    path = Path(work) / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def strip_box(ax, samples, title):
    paths = [p for p in reversed(LABELS) if p in samples]  # the first label at the top
    data = [[s["e2e"] * 1000 for s in samples[p]] for p in paths]
    ax.boxplot(data, vert=False, widths=0.5, showfliers=False)
    for i, values in enumerate(data, start=1):
        ax.scatter(values, [i] * len(values), s=10, alpha=0.6, zorder=3)
    ax.set_yticks(range(1, len(paths) + 1), [LABELS[p] for p in paths], fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("submit → SUCCEEDED seen (ms, log scale)")
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", which="both", alpha=0.3)


def ecdf(ax, values, label):
    xs = sorted(v * 1000 for v in values)
    ys = [(i + 1) / len(xs) for i in range(len(xs))]
    ax.step(xs, ys, where="post", label=label)


def main():
    work, out = sys.argv[1], sys.argv[2]
    trivial, distributed = load(work, "trivial"), load(work, "distributed")
    burst = load(work, "burst")
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    if trivial:
        strip_box(axes[0][0], trivial["samples"],
                  f"1. Trivial job end to end ({trivial['reps']} runs per path)")
    if distributed:
        strip_box(axes[0][1], distributed["samples"],
                  f"2. Master + 2 workers + 1 ps ({distributed['reps']} runs per path)")
    if trivial:
        ax = axes[1][0]
        rows = trivial["internal"]
        for key, label in (("create_to_exec", "createTime → exec"),
                           ("queue", "createTime → startTime"),
                           ("launch", "startTime → exec"),
                           ("client_e2e", "client: POST → SUCCEEDED seen")):
            ecdf(ax, [r[key] for r in rows], label)
        ax.set_xscale("log")
        ax.set_xlabel("ms (log scale)")
        ax.set_ylabel("fraction of jobs")
        ax.set_title(f"1. trainyard's own latency, {len(rows)} /bin/date jobs in sequence",
                     fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(which="both", alpha=0.3)
    if burst:
        ax = axes[1][1]
        runs = burst["samples"]["trainyard"]
        ecdf(ax, [x for r in runs for x in r["create_to_start"]], "createTime → startTime")
        ecdf(ax, [x for r in runs for x in r["create_to_end"]], "createTime → endTime")
        ax.set_xscale("log")
        ax.set_xlabel("ms (log scale)")
        ax.set_ylabel("fraction of jobs")
        ax.set_title(f"3. trainyard per job in the bursts ({len(runs)} × {burst['jobs']:,} jobs)",
                     fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(which="both", alpha=0.3)
    for row in axes:
        for ax in row:
            if not ax.has_data():
                ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
