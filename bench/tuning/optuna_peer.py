#!/usr/bin/python3
"""Optuna as a peer of trainyard's suggesters in the tuning benchmark: the same functions,
parameters, seeds, noise and trial counts, through Optuna's samplers (TPE, multivariate TPE,
CMA-ES, QMC, random). The functions are bench_tuning's own: this script asks it for their
descriptions (--describe) and has each study's points evaluated by a bench_tuning --evaluate
process, so there is one definition of each function. A conditional parameter is suggested only
when its parent has a value its condition names (define-by-run, as an Optuna user writes
`if optimizer == "sgd": trial.suggest_float("momentum", ...)`), and is sent to the evaluator as
"-" when it is not. A two-objective function (its description has "objectives": 2) runs as a
multi-objective study (create_study(directions=["minimize", "minimize"])) with Optuna's
multi-objective samplers (NSGA-II, TPE, random), and its curve is the hypervolume regret the
evaluator gives with each trial's values.

    /usr/bin/python3 bench/tuning/optuna_peer.py --bench BENCH_TUNING --csv OUT.csv
        [--seeds 20] [--first-seed 1] [--trials 100] [--functions a,b]
        [--samplers tpe,tpe-multivariate,cmaes,qmc,random,nsga2]

Writes curves in bench_tuning's --csv format (algorithm "optuna-<sampler>"), which
`bench_tuning --peer-csv` reads into its summary. Needs Debian's python3-optuna (3.1) with
python3-cmaes and python3-scipy. --samplers names any of both kinds; each function runs those of
its kind (the single-objective SAMPLERS, or MULTI_OBJECTIVE_SAMPLERS). Each sampler gets the
study's seed (bench_tuning's StudySeed of
the seed number) modulo 2^32. Mapping of the parameter types: DOUBLE and INTEGER to Optuna's
float and int distributions (log when UNIT_LOG_SCALE; UNIT_REVERSE_LOG_SCALE as a log-scaled
max + min - x, Optuna having no such scale); DISCRETE and CATEGORICAL to categorical ones, as
users write suggest_categorical for a list of batch sizes. On a conditional space multivariate
TPE runs with group=True, which models each set of parameters that occur together (each branch)
jointly, rather than only the parameters every trial has; on a flat space that set is the whole
space, and group=False is kept there because with group=True Optuna 3.1 still draws other points
(mixed5 differs from seed 1's 11th trial on), which would change the recorded runs."""
import argparse
import csv
import json
import logging
import subprocess
import sys
import time
import warnings

import optuna

# Each takes the seed and whether the space is conditional.
SAMPLERS = {
    "tpe": lambda seed, _: optuna.samplers.TPESampler(seed=seed),
    "tpe-multivariate": lambda seed, conditional: optuna.samplers.TPESampler(
        seed=seed, multivariate=True, group=conditional),
    "cmaes": lambda seed, _: optuna.samplers.CmaEsSampler(seed=seed),
    # Scrambled: unscrambled (3.1's default) ignores the seed and starts at the centre of the box,
    # the minimum of Ackley and a near-minimum of Levy.
    "qmc": lambda seed, _: optuna.samplers.QMCSampler(scramble=True, seed=seed),
    "random": lambda seed, _: optuna.samplers.RandomSampler(seed=seed),
}
# For two-objective functions. TPESampler models each objective's good and bad trials by
# nondominated sorting when the study has several directions (Optuna >= 3.0's MOTPE); NSGA-II runs
# with its defaults (a population of 50, so 100 trials are two generations).
MULTI_OBJECTIVE_SAMPLERS = {
    "nsga2": lambda seed, _: optuna.samplers.NSGAIISampler(seed=seed),
    "tpe": lambda seed, _: optuna.samplers.TPESampler(seed=seed),
    "random": lambda seed, _: optuna.samplers.RandomSampler(seed=seed),
}
MASK = (1 << 64) - 1
ABSENT = "-"  # bench_tuning --evaluate's value of a parameter the trial does not have


def study_seed(number):
    """bench_tuning's StudySeed (main.cc): SplitMix64 of the seed number."""
    z = (number + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def distribution(param):
    """(Optuna distribution, function from its value to the parameter's value)."""
    kind, scale = param["type"], param["scale"]
    if kind in ("DISCRETE", "CATEGORICAL"):
        return optuna.distributions.CategoricalDistribution(param["values"]), lambda v: v
    lo, hi = param["min"], param["max"]
    if kind == "INTEGER":
        return optuna.distributions.IntDistribution(int(lo), int(hi), log=scale == "LOG"), int
    if scale == "REVERSE_LOG":
        return (optuna.distributions.FloatDistribution(lo, hi, log=True),
                lambda v: min(hi, max(lo, hi + lo - v)))
    return optuna.distributions.FloatDistribution(lo, hi, log=scale == "LOG"), lambda v: v


def suggest(trial, name, dist):
    """The trial's value for a parameter, asked for as an Optuna user would."""
    if isinstance(dist, optuna.distributions.CategoricalDistribution):
        return trial.suggest_categorical(name, dist.choices)
    if isinstance(dist, optuna.distributions.IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, log=dist.log)
    return trial.suggest_float(name, dist.low, dist.high, log=dist.log)


def suggest_trial(trial, params, dists):
    """{name: value} of the trial's active parameters, parents before their children."""
    values = {}
    for p in params:
        condition = p.get("condition")
        if condition and values.get(condition["parent"], ABSENT) not in condition["values"]:
            continue
        dist, to_value = dists[p["name"]]
        values[p["name"]] = to_value(suggest(trial, p["name"], dist))
    return values


def samplers_of(function):
    """The samplers that can run the function: multi-objective ones for two objectives."""
    return MULTI_OBJECTIVE_SAMPLERS if function.get("objectives", 1) == 2 else SAMPLERS


def run_study(bench, function, sampler_name, seed_number, trials, writer):
    seed = study_seed(seed_number)
    params = function["params"]
    conditional = any("condition" in p for p in params)
    objectives = function.get("objectives", 1)
    study = optuna.create_study(directions=["minimize"] * objectives,
                                sampler=samplers_of(function)[sampler_name](seed % (1 << 32),
                                                                            conditional))
    dists = {p["name"]: distribution(p) for p in params}
    evaluator = subprocess.Popen([bench, "--evaluate", function["name"], "--first-seed",
                                  str(seed_number)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, bufsize=1)
    best_observed, best_truth = float("inf"), float("inf")
    try:
        for t in range(1, trials + 1):
            wall, cpu = time.perf_counter(), time.thread_time()
            trial = study.ask()
            active = suggest_trial(trial, params, dists)
            wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
            values = [active.get(p["name"], ABSENT) for p in params]
            evaluator.stdin.write(" ".join(repr(v) if isinstance(v, float) else str(v)
                                           for v in values) + "\n")
            # "observed truth on_bound", then for two objectives "observed2 truth2 regret".
            line = evaluator.stdout.readline().split()
            if len(line) != (3 if objectives == 1 else 6):
                sys.exit(f"optuna_peer.py: {function['name']} gave no value for {values}")
            observed, truth, on_bound = float(line[0]), float(line[1]), line[2]
            if objectives == 1:
                study.tell(trial, observed)
                if observed < best_observed:
                    best_observed, best_truth = observed, truth
                regret = best_truth - function["minimum"]
            else:
                study.tell(trial, [observed, float(line[3])])
                regret = float(line[5])
            writer.writerow([function["name"], f"optuna-{sampler_name}", seed_number, t,
                             f"{regret:.6g}", f"{wall * 1e3:.3f}", f"{cpu * 1e3:.3f}", on_bound])
    finally:
        evaluator.stdin.close()
        evaluator.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", required=True)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--functions", default="")
    parser.add_argument("--samplers", default=",".join(SAMPLERS | MULTI_OBJECTIVE_SAMPLERS))
    args = parser.parse_args()
    samplers = args.samplers.split(",")
    unknown = set(samplers) - set(SAMPLERS) - set(MULTI_OBJECTIVE_SAMPLERS)
    if unknown:
        sys.exit(f"optuna_peer.py: unknown samplers {', '.join(sorted(unknown))}")
    describe = [args.bench, "--describe", "-"]
    if args.functions:
        describe += ["--functions", args.functions]
    functions = json.loads(subprocess.run(describe, check=True, capture_output=True,
                                          text=True).stdout)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # Multivariate TPE, multi-objective TPE and QMC are "experimental" in 3.1.
    warnings.simplefilter("ignore")
    logging.getLogger("optuna").setLevel(logging.ERROR)
    with open(args.csv, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["function", "algorithm", "seed", "trial", "regret", "suggest_ms",
                         "suggest_cpu_ms", "on_bound"])
        for function in functions:
            for sampler in [s for s in samplers if s in samplers_of(function)]:
                started = time.monotonic()
                for s in range(args.seeds):
                    run_study(args.bench, function, sampler, args.first_seed + s, args.trials,
                              writer)
                    f.flush()
                print(f"optuna_peer.py: {function['name']} optuna-{sampler}: {args.seeds} seeds x "
                      f"{args.trials} trials in {time.monotonic() - started:.1f} s",
                      file=sys.stderr)


if __name__ == "__main__":
    main()
