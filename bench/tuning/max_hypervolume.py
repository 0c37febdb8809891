#!/usr/bin/python3
"""How the largest hypervolume of Branin-Currin (test_functions.cc, "branincurrin") was computed:
the hypervolume its Pareto front dominates up to the reference point (18, 6), both objectives
minimised over [0, 1]^2, by dense evaluation.

    /usr/bin/python3 bench/tuning/max_hypervolume.py [REFINEMENTS]   (default 7; needs numpy)

The Pareto set of a 2000 x 2000 grid, then REFINEMENTS times: each Pareto point's 5 x 5
neighbourhood at the current step (starting at the grid's), the new Pareto set, the step halved.
Each round prints the hypervolume of the Pareto points as a staircase (a lower bound) and with
trapezoids between neighbouring points, and each one's extrapolation from the last two rounds
(both errors halve with the step). Takes a few minutes and about 6 GB at 7 refinements."""
import sys

import numpy as np

REFERENCE = (18.0, 6.0)


def branin(x0, x1):
    a, b = 15 * x0 - 5, 15 * x1
    return ((b - 5.1 / (4 * np.pi**2) * a**2 + 5 / np.pi * a - 6)**2
            + 10 * (1 - 1 / (8 * np.pi)) * np.cos(a) + 10)


def currin(x0, x1):
    with np.errstate(divide="ignore"):
        factor = 1 - np.exp(-1 / (2 * x1))  # 1 at x1 = 0, as exp(-inf) = 0
    return factor * (2300 * x0**3 + 1900 * x0**2 + 2092 * x0 + 60) / (
        100 * x0**3 + 500 * x0**2 + 4 * x0 + 20)


def pareto(f1, f2):
    """Indices of the points no other point dominates (one of equal ones)."""
    order = np.lexsort((f2, f1))
    best = np.minimum.accumulate(f2[order])
    before = np.concatenate(([np.inf], best[:-1]))
    return order[f2[order] < before]


def volumes(f1, f2):
    """(staircase, trapezoid) hypervolume of Pareto points inside the reference."""
    inside = (f1 < REFERENCE[0]) & (f2 < REFERENCE[1])
    order = np.argsort(f1[inside])
    a, b = f1[inside][order], f2[inside][order]
    ceilings = np.concatenate(([REFERENCE[1]], b[:-1]))
    staircase = np.sum((REFERENCE[0] - a) * (ceilings - b))
    return staircase, staircase + 0.5 * np.sum(np.diff(a) * -np.diff(b))


def main():
    refinements = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    n = 2000
    x0, x1 = (g.ravel() for g in np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n)))
    step = 1 / (n - 1)
    previous = None
    for round_ in range(refinements + 1):
        f1, f2 = branin(x0, x1), currin(x0, x1)
        keep = pareto(f1, f2)
        x0, x1 = x0[keep], x1[keep]
        current = volumes(f1[keep], f2[keep])
        line = f"round {round_}: {len(keep)} Pareto points, staircase {current[0]:.6f}, " \
               f"trapezoids {current[1]:.6f}"
        if previous:
            line += ", extrapolated {:.6f} and {:.6f}".format(
                *(2 * c - p for c, p in zip(current, previous)))
        print(line, flush=True)
        previous = current
        offsets = np.array([-1, -0.5, 0, 0.5, 1]) * step
        d0, d1 = (g.ravel() for g in np.meshgrid(offsets, offsets))
        x0 = np.clip((x0[:, None] + d0).ravel(), 0, 1)
        x1 = np.clip((x1[:, None] + d1).ravel(), 0, 1)
        step /= 2


if __name__ == "__main__":
    main()
