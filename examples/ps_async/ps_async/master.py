"""The master (TF_CONFIG's chief): the coordinator. It trains nothing itself.

It watches the global step (parameter server 0's version), saves a checkpoint every
`--checkpoint-every` steps by pulling W from every parameter server (server 0 holds pushes at
each checkpoint's step until the master has saved it and moved the hold on), and once the global
step reaches `--train-steps` it:

1. sends FINISH to every parameter server (they refuse further pushes and answer "stop", so each
   worker stops at its next pull or push and says BYE);
2. waits for every worker's BYE, pulls W and saves the final checkpoint and final.json;
3. waits for every evaluator's report on the final checkpoint (evaluators are counted in
   CLUSTER_SPEC);
4. writes <job-dir>/model.npz and <job-dir>/metrics.json (test accuracy, per-worker push counts
   from every parameter server, staleness, the evaluations), sends SHUTDOWN to the parameter
   servers, and exits 0, which ends the job SUCCEEDED.
"""

import json
import logging
import os
import time

import numpy as np

from ps_async import checkpoints, client as client_lib, evaluator, model, protocol

log = logging.getLogger(__name__)
POLL_S = 0.02


def _wait_for(what, ready, timeout):
    """Polls ready() until it is true or `timeout` seconds pass; whether it became true."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            log.warning("master: gave up waiting for %s after %d s", what, timeout)
            return False
        time.sleep(POLL_S)
    return True


def _train(params, args):
    """Saves periodic checkpoints until the global step reaches --train-steps."""
    next_checkpoint = args.checkpoint_every
    started = time.monotonic()
    while True:
        step = params.global_step()
        if step >= next_checkpoint and step < args.train_steps:
            weights, versions, _ = params.pull()
            path = checkpoints.save(args.job_dir, versions[0], weights)
            log.info("master: global step %d: saved %s", versions[0], os.path.basename(path))
            next_checkpoint = (versions[0] // args.checkpoint_every + 1) * args.checkpoint_every
            params.hold_at(next_checkpoint if next_checkpoint < args.train_steps else None)
        if step >= args.train_steps:
            log.info("master: global step %d reached in %.1f s; stopping the workers", step,
                     time.monotonic() - started)
            return
        time.sleep(POLL_S)


def _all_workers_stopped(params, workers):
    stopped = set(params.stats()[0]["stopped_workers"])
    return stopped >= {"worker-%d" % i for i in range(workers)}


def _metrics(args, cluster, test_set, step, weights, stats, evaluations):
    x_test, y_test = test_set
    pushes = {}
    for server in stats:
        for worker, count in server["pushes"].items():
            pushes.setdefault(worker, []).append(count)
    return {
        "test_accuracy": model.accuracy(weights, x_test, y_test),
        "test_examples": int(len(y_test)),
        "global_step": step,
        "train_steps": args.train_steps,
        "workers": len(cluster.workers),
        "parameter_servers": len(cluster.ps),
        # Pushes each worker made, as counted by each parameter server (index order).
        "pushes_by_worker": pushes,
        "ps": [dict(s, index=i) for i, s in enumerate(stats)],
        "checkpoints": [os.path.basename(p) for _, p in checkpoints.listed(args.job_dir)],
        "evaluations": evaluations,
    }


def run(cluster, args):
    """Coordinates the job; returns the exit status."""
    if not cluster.ps or not cluster.workers:
        log.error("master: this example needs parameter servers and workers (CUSTOM scale tier "
                  "with parameterServerCount and workerCount); TF_CONFIG has ps=%s worker=%s",
                  cluster.ps, cluster.workers)
        return 2
    if checkpoints.final(args.job_dir) is not None:
        log.error("master: %s already holds a finished run; use a new --job-dir", args.job_dir)
        return 2
    _, _, x_test, y_test = model.load_data()  # now, not while the replicas wait at the end
    params = client_lib.ShardedModel(cluster.ps, cluster.name, args.connect_timeout)
    log.info("master: %d workers, %d parameter servers %s, %d evaluators; training to global "
             "step %d", len(cluster.workers), len(cluster.ps), cluster.ps, cluster.evaluators,
             args.train_steps)
    _train(params, args)
    params.tell_all(protocol.FINISH)
    _wait_for("the workers' BYE", lambda: _all_workers_stopped(params, len(cluster.workers)),
              args.wait_timeout)
    weights, versions, _ = params.pull()
    checkpoints.save_final(args.job_dir, versions[0], weights)
    log.info("master: final checkpoint at global step %d", versions[0])
    _wait_for("the evaluators", lambda: len(evaluator.reports(args.job_dir)) >= cluster.evaluators,
              args.wait_timeout)
    metrics = _metrics(args, cluster, (x_test, y_test), versions[0], weights, params.stats(),
                       evaluator.reports(args.job_dir))
    with open(os.path.join(args.job_dir, "model.npz"), "wb") as f:
        np.savez(f, weights=weights, global_step=versions[0])
    with open(os.path.join(args.job_dir, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2)
    log.info("master: test accuracy %.4f; pushes by worker %s", metrics["test_accuracy"],
             metrics["pushes_by_worker"])
    params.tell_all(protocol.SHUTDOWN, {"by": cluster.name})
    params.close()
    return 0
