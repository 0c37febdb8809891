#!/usr/bin/python3
"""Issue #34's "Measured" preemption figures, from a real run through gcloud (by hand, not a test).

On one emulated T4 (`trainyard serve --accelerator-emulation 1 --stop-grace G`), with
examples/trainers/checkpointing (tests/e2e/preemption_scenario.py):
1. its own start: a priority-500 job alone on the free T4, from its createTime to its trainer's
   first line (staging, placement, launch);
2. for each way the victim checkpoints (every k steps and at SIGTERM; every k steps only): a
   priority-0 victim runs past a few checkpoints, then the same priority-500 job is submitted.
   Printed: the urgent job's wait (createTime to its trainer's start) against the bound, stop grace
   + its own start; how long the victim took to stop (the urgent createTime to the victim's
   SIGTERM, and on to the urgent trainer's start); and the victim's steps lost (the last step it
   reached minus the step it resumed from) against k. Both jobs must SUCCEED.

Usage: bench/scheduling/preempt_run.py --trainyard build/release/trainyard [--stop-grace 10]
       [--every 10] [--step-seconds 0.1]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "e2e"))
import preemption_scenario  # noqa: E402
from preemption_scenario import unix_time  # noqa: E402


def trainer_start(s, job_id, index=0):
    """When the job's trainer started for the `index`th time (Unix time), once it has."""
    return s.wait("%s's trainer start %d" % (job_id, index),
                  lambda: (lambda lines: lines[index]["time"] if len(lines) > index else None)(
                      s.lines(job_id, "starts.jsonl")))


def submit(s, job_id, priority, **kwargs):
    run = s.submit(job_id, priority, **kwargs)
    if run.rc != 0:
        raise AssertionError("submit %s: %r" % (job_id, run))
    return unix_time(s.describe(job_id)["createTime"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trainyard", required=True)
    parser.add_argument("--stop-grace", type=int, default=10)
    parser.add_argument("--every", type=int, default=10, help="the victim's checkpoint interval")
    parser.add_argument("--step-seconds", type=float, default=0.1)
    args = parser.parse_args()
    k = args.every
    s = preemption_scenario.Scenario(os.path.abspath(args.trainyard), args.stop_grace)
    try:
        created = submit(s, "solo", 500, steps=10, step_s=args.step_seconds)
        own_start = trainer_start(s, "solo") - created
        s.wait_for_state("solo", "SUCCEEDED")
        print("stop grace %d s; the urgent job's own start (alone on the free T4): %.2f s"
              % (args.stop_grace, own_start))
        bound = args.stop_grace + own_start
        for name, at_sigterm in (("every k steps and at SIGTERM", True),
                                 ("every k steps only", False)):
            victim, urgent = "victim_%d" % at_sigterm, "urgent_%d" % at_sigterm
            submit(s, victim, 0, steps=12 * k, step_s=args.step_seconds, every=k,
                   sigterm_checkpoint=at_sigterm)
            # Past two checkpoints and half way to the next (more by the time gcloud submits).
            s.wait("%s at step %d" % (victim, 2 * k + k // 2),
                   lambda v=victim: s.progress(v) >= 2 * k + k // 2)
            created = submit(s, urgent, 500, steps=10, step_s=args.step_seconds)
            started = trainer_start(s, urgent)
            sigterm = s.wait("%s's SIGTERM" % victim,
                             lambda v=victim: (s.lines(v, "stops.jsonl") or [{}])[0].get("time"))
            s.wait_for_state(urgent, "SUCCEEDED")
            s.wait_for_state(victim, "SUCCEEDED")
            resumed = s.lines(victim, "starts.jsonl")[1]
            lost = resumed["reached_before"] - resumed["resumed_from"]
            wait = started - created
            print("checkpoint %s (k = %d steps of %.2f s):" % (name, k, args.step_seconds))
            print("  urgent wait, submit to RUNNING: %.2f s  (bound: stop grace %d s + own start "
                  "%.2f s = %.2f s: %s)" % (wait, args.stop_grace, own_start, bound,
                                          "within" if wait <= bound else "OVER"))
            print("    of which: submit to the victim's SIGTERM %.2f s, SIGTERM to the urgent "
                  "trainer's start %.2f s" % (sigterm - created, started - sigterm))
            print("  victim: reached step %d, queued again, resumed from %d: %d steps lost (bound "
                  "k = %d: %s); both SUCCEEDED" % (resumed["reached_before"],
                                                   resumed["resumed_from"], lost, k,
                                                   "within" if 0 <= lost <= k else "OVER"))
    finally:
        s.close()


if __name__ == "__main__":
    main()
