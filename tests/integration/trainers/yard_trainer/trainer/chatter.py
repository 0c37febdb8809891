"""Prints numbered lines, alternating stdout and stderr, for the log and restart tests.

Each replica appends its pid to <job-dir>/<task>.pids when it starts (so a restarted or duplicated
replica shows as a second line), then prints "<task> line <i>" for i in 0..--lines-1, one every
--interval seconds, flushing each (--streams=stdout: all on stdout; two pipes cannot keep the
order of lines written back to back on both). The master and workers then exit 0; a parameter server waits
until it is stopped. --on-sigterm=linger: SIGTERM makes it print "<task> stopping", go on printing
for 2 more seconds, then exit 0 (a cancel that takes a while).
"""
import json
import os
import signal
import sys
import time

from trainer import common


def main():
    args = common.parse_args(("--lines", "200"), ("--interval", "0.02"), ("--on-sigterm", "exit"),
                             ("--streams", "both"))
    task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
    role = {"chief": "master"}.get(task.get("type", "master"), task.get("type", "master"))
    name = "%s-replica-%d" % (role, task.get("index", 0))
    with open(os.path.join(args.job_dir, name + ".pids"), "a", encoding="utf-8") as pids:
        pids.write("%d\n" % os.getpid())
    stop_at = []
    if args.on_sigterm == "linger":
        def linger(signum, frame):
            del signum, frame
            print(name + " stopping", flush=True)
            stop_at.append(time.monotonic() + 2)
        signal.signal(signal.SIGTERM, linger)
    i = 0
    while i < int(args.lines) or (task.get("type") == "ps"):
        if stop_at and time.monotonic() > stop_at[0]:
            return
        if i < int(args.lines):
            out = sys.stdout if i % 2 == 0 or args.streams == "stdout" else sys.stderr
            print("%s line %d" % (name, i), file=out, flush=True)
        i += 1
        if float(args.interval) > 0:
            time.sleep(float(args.interval))


if __name__ == "__main__":
    main()
