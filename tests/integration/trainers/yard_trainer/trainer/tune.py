"""A tuning trial: appends its pid to <job-dir>/trial-<CLOUD_ML_TRIAL_ID>.pids, reports --x as
the metric `score` through trainyard's hypertune module at steps 1..--steps, --interval seconds
apart, and exits 0.
"""
import os
import time

import hypertune

from trainer import common


def main():
    args = common.parse_args(("--x", "0"), ("--steps", "3"), ("--interval", "1"))
    trial = os.environ.get("CLOUD_ML_TRIAL_ID", "0")
    with open(os.path.join(args.job_dir, "trial-%s.pids" % trial), "a", encoding="utf-8") as out:
        out.write("%d\n" % os.getpid())
    reporter = hypertune.HyperTune()
    for step in range(1, int(args.steps) + 1):
        time.sleep(float(args.interval))
        reporter.report_hyperparameter_tuning_metric(
            hyperparameter_metric_tag="score", metric_value=float(args.x), global_step=step)
        print("trial %s step %d score %s" % (trial, step, args.x))


if __name__ == "__main__":
    main()
