"""The tuning probe: see hp_probe/__init__.py."""

import argparse
import json
import os
import signal
import sys
import time

import hypertune


def parse_args(argv=None):
    """(probe flags, {hyperparameter: text}) from argv."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True)
    parser.add_argument("--tag", default="score")
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--interval", type=float, default=0.0)
    parser.add_argument("--fail-on", action="append", default=[])
    parser.add_argument("--hold", action="store_true")
    args, rest = parser.parse_known_args(argv)
    params = {}
    for flag in rest:
        if not flag.startswith("--") or "=" not in flag:
            parser.error("not a --name=value hyperparameter: %r" % flag)
        name, value = flag[2:].split("=", 1)
        params[name] = value
    return args, params


def base_value(params):
    """The sum of the numeric hyperparameters, plus 0.5 for a categorical one that is `y`."""
    total = 0.0
    for value in params.values():
        try:
            total += float(value)
        except ValueError:
            total += 0.5 if value == "y" else 0.0
    return total


def write(path, text):
    """Writes `path` whole (a temporary file renamed over it)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    args, params = parse_args()
    trial = os.environ.get("CLOUD_ML_TRIAL_ID", "none")
    out = os.path.join(args.job_dir, trial)

    def stop(signum, frame):
        del frame  # the signal module's signature
        write(os.path.join(out, "sigterm"), "signal %d\n" % signum)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    seen = {
        "pid": os.getpid(),
        "argv": sys.argv[1:],
        "params": params,
        "env": {name: os.environ.get(name) for name in (
            "CLOUD_ML_TRIAL_ID", "CLOUD_ML_HP_METRIC_FILE", "CLOUD_ML_HP_METRIC_TAG",
            "CLOUD_ML_JOB_ID")},
        "tf_config_task": json.loads(os.environ.get("TF_CONFIG") or "{}").get("task"),
        "hypertune": os.path.abspath(hypertune.__file__),
    }
    write(os.path.join(out, "seen.json"), json.dumps(seen) + "\n")
    print("hp_probe trial %s started with %s" % (trial, json.dumps(params, sort_keys=True)),
          flush=True)
    for name_value in args.fail_on:
        name, value = name_value.split("=", 1)
        if params.get(name) == value:
            sys.stderr.write("hp_probe: trial %s fails on purpose: %s=%s\n" % (trial, name, value))
            sys.exit(1)
    reporter = hypertune.HyperTune()
    for step in range(1, args.steps + 1):
        if step > 1:
            time.sleep(args.interval)
        value = base_value(params) + 1.0 / step
        reporter.report_hyperparameter_tuning_metric(
            hyperparameter_metric_tag=args.tag, metric_value=value, global_step=step)
        print("hp_probe trial %s step %d: %s=%r" % (trial, step, args.tag, value), flush=True)
    write(os.path.join(out, "done"), "%d steps\n" % args.steps)
    while args.hold:
        signal.pause()


if __name__ == "__main__":
    main()
