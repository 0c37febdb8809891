"""An evaluator: follows the master's checkpoints and logs each one's held-out accuracy.

It polls <job-dir>/checkpoints/, evaluates every new checkpoint in step order (one log line
each), and once final.json names a checkpoint it has evaluated it writes its report to
<job-dir>/evaluations/evaluator-<index>.json (which the master waits for) and exits 0. With no
new checkpoint for `--evaluator-timeout` seconds it gives up and exits 1.
"""

import json
import logging
import os
import time

from ps_async import checkpoints, model

log = logging.getLogger(__name__)
POLL_S = 0.1


def _report_dir(job_dir):
    return os.path.join(job_dir, "evaluations")


def reports(job_dir):
    """{evaluator name: report} of the evaluators that have finished."""
    found = {}
    try:
        names = sorted(os.listdir(_report_dir(job_dir)))
    except FileNotFoundError:
        return found
    for name in names:
        if name.endswith(".json"):
            with open(os.path.join(_report_dir(job_dir), name), encoding="utf-8") as f:
                found[name[:-len(".json")]] = json.load(f)
    return found


def _write_report(job_dir, name, evaluated):
    os.makedirs(_report_dir(job_dir), exist_ok=True)
    path = os.path.join(_report_dir(job_dir), name + ".json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump({"evaluated": evaluated, "final": evaluated[-1] if evaluated else None}, f)
    os.replace(path + ".tmp", path)


def run(cluster, args):
    """Evaluates checkpoints until the final one; returns the exit status."""
    _, _, x_test, y_test = model.load_data()
    log.info("%s: watching %s", cluster.name, checkpoints.directory(args.job_dir))
    evaluated, seen = [], set()
    last_progress = time.monotonic()
    while True:
        final = checkpoints.final(args.job_dir)  # before listing: it is written last
        for step, path in checkpoints.listed(args.job_dir):
            if step in seen:
                continue
            _, weights = checkpoints.load(path)
            accuracy = model.accuracy(weights, x_test, y_test)
            log.info("%s: checkpoint %s (global step %d): accuracy %.4f on %d held-out "
                     "examples", cluster.name, os.path.basename(path), step, accuracy,
                     len(y_test))
            seen.add(step)
            evaluated.append({"global_step": step, "accuracy": accuracy})
            last_progress = time.monotonic()
        if final is not None and final["global_step"] in seen:
            _write_report(args.job_dir, cluster.name, evaluated)
            log.info("%s: evaluated the final checkpoint; %d evaluations", cluster.name,
                     len(evaluated))
            return 0
        if time.monotonic() - last_progress > args.evaluator_timeout:
            log.error("%s: no new checkpoint for %d s; giving up", cluster.name,
                      args.evaluator_timeout)
            return 1
        time.sleep(POLL_S)
