"""Runs until it is stopped, with a grandchild (`sleep 1000`) in its process group, and writes
<job-dir>/pids.json = {"trainer": pid, "grandchild": pid} once both run.

--on-sigterm says what SIGTERM does:
  exit     the default action (both die);
  ignore   nothing: the trainer and its grandchild wait for SIGKILL;
  release  the trainer writes <job-dir>/sigterm, waits for the test to create <job-dir>/release
           and exits 0 (its grandchild ignores SIGTERM).
"""
import os
import signal
import subprocess
import time

from trainer import common


def main():
    args = common.parse_args(("--on-sigterm", "exit"))
    if args.on_sigterm != "exit":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # inherited by the grandchild
    grandchild = subprocess.Popen(["sleep", "1000"])
    terminated = []
    if args.on_sigterm == "release":
        signal.signal(signal.SIGTERM, lambda signum, frame: terminated.append(signum))
    common.write_json(os.path.join(args.job_dir, "pids.json"),
                      {"trainer": os.getpid(), "grandchild": grandchild.pid})
    print("sleeping until stopped")
    while not terminated:
        time.sleep(0.05)
    with open(os.path.join(args.job_dir, "sigterm"), "w", encoding="utf-8"):
        pass
    while not os.path.exists(os.path.join(args.job_dir, "release")):
        time.sleep(0.05)


if __name__ == "__main__":
    main()
