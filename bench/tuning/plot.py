#!/usr/bin/python3
"""Draws bench_tuning's regret curves: median log10 simple regret against the trial number, with
the band between the quartiles over seeds, one panel per test function, one curve per algorithm.
For a two-objective function the regret is the hypervolume regret.

    /usr/bin/python3 bench/tuning/plot.py CURVES.csv OUT.png

Needs numpy and matplotlib (Debian: python3-matplotlib)."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

REGRET_FLOOR = 1e-10  # as summary.h's kRegretFloor
LABELS = {
    "branin": "Branin (2-D)",
    "hartmann6": "Hartmann-6 (6-D)",
    "rosenbrock4": "Rosenbrock-4 (4-D, [-5, 10]^4)",
    "ackley5": "Ackley-5 (5-D)",
    "mixed5": "Mixed study (5 params)",
    "hartmann6-noisy": "Hartmann-6, noise sd 0.1",
    "levy10": "Levy-10 (10-D)",
    "optimizer8": "Optimizer study (8 params, conditional)",
    "branincurrin": "Branin-Currin (2-D, 2 objectives)",
    "zdt1": "ZDT1 (4-D, 2 objectives)",
}
TWO_OBJECTIVES = {"branincurrin", "zdt1"}  # their regret is hypervolume regret
# Each algorithm its own colour: matplotlib's cycle would give the peers trainyard's colours.
COLOURS = {"gp": "tab:blue", "random": "tab:orange", "gp-batch4": "tab:green",
           "optuna-tpe": "tab:red", "optuna-tpe-multivariate": "tab:purple",
           "optuna-cmaes": "tab:brown", "optuna-qmc": "tab:pink", "optuna-random": "tab:gray",
           "optuna-nsga2": "tab:olive"}


def read_curves(path):
    """{function: {algorithm: {seed: [regret by trial]}}}, in the file's order."""
    curves = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            seed_curve = curves[row["function"]][row["algorithm"]][row["seed"]]
            if int(row["trial"]) != len(seed_curve) + 1:
                sys.exit(f"plot.py: {path}: trials out of order in {row}")
            seed_curve.append(float(row["regret"]))
    return curves


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    curves = read_curves(sys.argv[1])
    functions = list(curves)
    columns = 2 if len(functions) > 1 else 1
    rows = (len(functions) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(6 * columns, 4 * rows), squeeze=False)
    for ax, function in zip(axes.flat, functions):
        for algorithm, seeds in curves[function].items():
            regrets = np.array(list(seeds.values()))  # seeds x trials
            logs = np.log10(np.maximum(regrets, REGRET_FLOOR))
            q1, median, q3 = np.percentile(logs, [25, 50, 75], axis=0)
            trials = np.arange(1, logs.shape[1] + 1)
            colour = COLOURS.get(algorithm)
            ax.plot(trials, median, color=colour, label=f"{algorithm} (median)")
            ax.fill_between(trials, q1, q3, color=colour, alpha=0.2, linewidth=0)
        seeds_count = len(next(iter(curves[function].values())))
        ax.set_title(f"{LABELS.get(function, function)}, {seeds_count} seeds")
        ax.set_xlabel("trial")
        ax.set_ylabel("log10 hypervolume regret" if function in TWO_OBJECTIVES
                      else "log10 simple regret")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    for ax in list(axes.flat)[len(functions):]:
        ax.set_visible(False)
    title = "Best value so far minus the known minimum"
    if TWO_OBJECTIVES & set(functions):
        title += " (two objectives: largest hypervolume minus the trials')"
    fig.suptitle(f"{title}: median and quartile band")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=90)


if __name__ == "__main__":
    main()
