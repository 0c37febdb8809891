"""A trainer that checkpoints, for preemption (issue #34): standard library only.

It "trains" for --steps steps of --step-seconds each and keeps its state in --job-dir:
- checkpoint.json: {"step": N}, written (atomically) every --checkpoint-every steps and, unless
  --no-checkpoint-on-sigterm, when SIGTERM comes (trainyard's stop: a preemption, a suspend, a
  cancel), before it exits with 143 within the stop grace;
- progress.json: {"step": N, "pid": P}, the last step done, after every step;
- starts.jsonl: one line per start, {"pid", "time", "resumed_from", "reached_before"}: when it
  started (Unix time), the step its checkpoint let it resume from, and the last step the previous
  start reached (progress.json) — their difference is the work a stop lost, at most
  --checkpoint-every;
- stops.jsonl: one line per SIGTERM, {"pid", "time", "step"};
- done.json at the end: {"steps", "starts"}.

With --pause-at N it stops working when it reaches step N and waits, doing no steps, until a file
named `release` is in --job-dir (or SIGTERM comes): a test holds a job mid-run this way, whatever
the machine's load, and a start after the file exists goes straight on.

Run it with gcloud as any package (`--package-path examples/trainers/checkpointing/trainer
--module-name trainer.task`); tests/e2e/preemption_test.py and bench/scheduling/preempt_run.py do.
"""

import argparse
import json
import os
import signal
import sys
import time


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True, help="where the checkpoint and progress go")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--step-seconds", type=float, default=0.1)
    parser.add_argument("--checkpoint-every", type=int, default=10)
    parser.add_argument("--no-checkpoint-on-sigterm", dest="checkpoint_on_sigterm",
                        action="store_false")
    parser.add_argument("--pause-at", type=int, default=0,
                        help="wait at this step (N > 0) until --job-dir holds a file named release")
    return parser.parse_args()


def read_json(path, default):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def write_json(path, value):
    """Whole or not at all: a stop in the middle leaves the previous file."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main():
    args = parse_args()
    os.makedirs(args.job_dir, exist_ok=True)
    checkpoint = os.path.join(args.job_dir, "checkpoint.json")
    progress = os.path.join(args.job_dir, "progress.json")
    step = read_json(checkpoint, {"step": 0})["step"]
    reached = read_json(progress, {"step": 0})["step"]
    with open(os.path.join(args.job_dir, "starts.jsonl"), "a", encoding="utf-8") as f:
        f.write(json.dumps({"pid": os.getpid(), "time": time.time(), "resumed_from": step,
                            "reached_before": reached}) + "\n")
    print("starting at step %d of %d (the last start reached %d)" % (step, args.steps, reached),
          flush=True)

    stopping = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    while step < args.steps:
        if stopping:
            with open(os.path.join(args.job_dir, "stops.jsonl"), "a", encoding="utf-8") as f:
                f.write(json.dumps({"pid": os.getpid(), "time": time.time(), "step": step}) + "\n")
            if args.checkpoint_on_sigterm:
                write_json(checkpoint, {"step": step})
                print("SIGTERM: checkpointed step %d" % step, flush=True)
            sys.exit(128 + signal.SIGTERM)
        if 0 < args.pause_at == step and not os.path.exists(os.path.join(args.job_dir, "release")):
            time.sleep(0.05)  # held: no work until the file appears
            continue
        time.sleep(args.step_seconds)  # the step's work
        step += 1
        write_json(progress, {"step": step, "pid": os.getpid()})
        if step % args.checkpoint_every == 0:
            write_json(checkpoint, {"step": step})
    write_json(checkpoint, {"step": step})
    with open(os.path.join(args.job_dir, "starts.jsonl"), encoding="utf-8") as f:
        starts = sum(1 for _ in f)
    write_json(os.path.join(args.job_dir, "done.json"), {"steps": step, "starts": starts})
    print("done: %d steps in %d start(s)" % (step, starts), flush=True)


if __name__ == "__main__":
    main()
