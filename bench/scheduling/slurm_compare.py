#!/usr/bin/python3
"""Issue #34's "Measured" comparison with Slurm: the same workload through trainyard and through
a real Slurm 22.05, side by side in one run (by hand, not a test; about 10 minutes).

Both systems get one machine with 4 emulated T4s and run `sleep` jobs of a few seconds, each job
asking for whole GPUs; every job has the same time limit in both, 1 minute (Slurm's granularity:
a limit is whole minutes), which is what each backfill trusts.

* trainyard: `trainyard serve --containers host --cluster-file` (one node, 16 CPUs, 4 emulated
  T4s), jobs as ml v1 command jobs (bench/scenarios/bench_lib.py) with
  `scheduling.maxRunningTime: 60s`, weights set with `trainyard quota set P --weight W`.
* Slurm: bench/peers/slurm/start.sh --accounting (slurmctld, one slurmd with `gpu:t4:4`,
  slurmdbd + MariaDB) with `--priority multifactor`: PriorityWeightFairshare the only non-zero
  weight, fair tree (22.05's default), usage halved daily as trainyard's, recalculated every
  minute (PriorityCalcPeriod's floor); SchedulerType=sched/backfill with bf_interval=1;
  MinJobAge=300 (Slurm's default: the peer's 5 s purges an ended job before the once-a-minute
  usage pass has charged it, and fair-share then sees almost no usage). One
  account per project with its weight as `Fairshare=`; a job asks `--gres=gpu:t4:G -c G`, so its
  CPU-seconds (what Slurm's usage counts) are its GPU-seconds.

Cases, each on a freshly started pair (new data dir, new Slurm state and accounting database):
1. starvation: four 1-GPU jobs of 10, 15, 20 and 25 s running, then a 4-GPU job (10 s), then six
   1-GPU jobs (10 s). Printed: the 4-GPU job's wait (submit to start) beside the bound (the
   longest running job's remaining time when it was submitted), how many later jobs started
   before it, jobs completed.
2. share 1:1 and 3. share 2:1: projects a and b each submit a backlog of 1-GPU jobs of 10 s,
   interleaved a, b, a, b…, more than the window can run. Printed: each project's share of the
   GPU-seconds used in the first --window seconds after the first submit, the utilisation of the
   4 GPUs over that window, the jobs completed in it.

Times: trainyard's createTime/startTime/endTime (microseconds); Slurm's sacct Submit/Start/End
(whole seconds). Needs root (Slurm's daemons).

Usage: bench/scheduling/slurm_compare.py --trainyard build/release/trainyard [--window 180]
       [--job-seconds 10] [--state-dir /var/tmp/trainyard-share-slurm] [--port-base 17817]
       [--out results.json]
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scenarios"))
import bench_lib as lib  # noqa: E402

START_SH = HERE.parent / "peers" / "slurm" / "start.sh"
STOP_SH = HERE.parent / "peers" / "slurm" / "stop.sh"
GPUS = 4
LIMIT_S = 60
CLUSTER_YAML = """nodes:
  - name: localhost
    cpus: 16
    memory: 16Gi
    accelerators: {NVIDIA_TESLA_T4: %d}
    emulated: true
""" % GPUS
# Multifactor priority with fair-share alone; the rest as bench/peers/slurm/README.md chose.
SLURM_PRIORITY = """PriorityWeightFairshare=10000
PriorityWeightAge=0
PriorityWeightJobSize=0
PriorityWeightPartition=0
PriorityWeightQOS=0
PriorityDecayHalfLife=1-0
PriorityCalcPeriod=1
PriorityUsageResetPeriod=NONE
"""


class Trainyard:
    """One `trainyard serve` for a case; jobs are `sleep` commands on emulated T4s."""

    name = "trainyard"

    def __init__(self, binary, work, weights):
        cluster = Path(work) / "cluster.yaml"
        cluster.write_text(CLUSTER_YAML)
        self.binary = binary
        self.server = lib.Server(binary, work, "trainyard",
                                 ["--cluster-file", str(cluster)]).__enter__()
        self.api = lib.Api(self.server.url)
        self.jobs = {}  # name -> (project, gpus)
        for project, weight in weights.items():
            subprocess.run([binary, "quota", "set", project, "--weight", str(weight),
                            "--server", self.server.url], check=True, capture_output=True)

    def close(self):
        self.server.__exit__(None, None, None)

    def submit(self, name, project, gpus, seconds):
        job = lib.command_job(name, ["/bin/sleep", str(seconds)])
        job["trainingInput"]["scaleTier"] = "CUSTOM"
        job["trainingInput"]["masterType"] = "n1-standard-4"
        job["trainingInput"]["masterConfig"]["acceleratorConfig"] = {
            "count": str(gpus), "type": "NVIDIA_TESLA_T4"}
        job["trainingInput"]["scheduling"] = {"maxRunningTime": "%ds" % LIMIT_S}
        self.api.create(project, job)
        self.jobs[name] = (project, gpus)

    def snapshot(self):
        """{name: {project, gpus, submit, start, end}} (Unix times; None when not yet)."""
        out = {}
        for project in sorted({p for p, _ in self.jobs.values()}):
            for job in self.api.list_all(project):
                stamp = {k: lib.parse_time(job[f]) if job.get(f) else None
                         for k, f in (("submit", "createTime"), ("start", "startTime"),
                                      ("end", "endTime"))}
                out[job["jobId"]] = dict(stamp, project=project,
                                         gpus=self.jobs[job["jobId"]][1])
        return out


class Slurm:
    """A fresh Slurm cluster for a case: one node with gpu:t4:4, an account per project."""

    name = "slurm"

    def __init__(self, work, state_dir, port_base, weights):
        extra = Path(work) / "priority.conf"
        extra.write_text(SLURM_PRIORITY)
        started = subprocess.run(
            ["bash", str(START_SH), "--restart", "--accounting", "--priority", "multifactor",
             "--conf-extra", str(extra), "--state-dir", state_dir, "--port-base", str(port_base),
             "--nodes", "1", "--gpus", str(GPUS), "--gpu-type", "t4", "--cpus", "16",
             "--memory", "16000", "--min-job-age", "300"], capture_output=True, text=True)
        if started.returncode != 0:
            raise RuntimeError("start.sh failed:\n" + started.stderr[-3000:])
        self.state_dir = state_dir
        self.env = dict(os.environ, SLURM_CONF=started.stdout.strip().split("=", 1)[1])
        self.out = Path(work) / "slurm-out"
        self.out.mkdir(exist_ok=True)
        self.jobs = {}  # name -> (project, gpus)
        for project, weight in weights.items():
            self.run("sacctmgr", "-i", "add", "account", project, "Fairshare=%d" % weight)
            self.run("sacctmgr", "-i", "add", "user", "root", "Account=" + project)

    def run(self, *cmd):
        done = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError("%s: %s" % (" ".join(cmd), done.stderr.strip()))
        return done.stdout

    def close(self):
        subprocess.run(["bash", str(STOP_SH), "--state-dir", self.state_dir],
                       capture_output=True)

    def submit(self, name, project, gpus, seconds):
        self.run("sbatch", "--parsable", "-J", name, "-A", project, "--gres=gpu:t4:%d" % gpus,
                 "-c", str(gpus), "--mem=100M", "--time=%d" % (LIMIT_S // 60),
                 "-o", "/dev/null", "--wrap", "sleep %d" % seconds)
        self.jobs[name] = (project, gpus)

    def sshare(self):
        return self.run("sshare", "-a", "-o", "Account,User,RawShares,NormShares,RawUsage,"
                        "EffectvUsage,FairShare")

    def snapshot(self):
        rows = self.run("sacct", "-X", "-n", "-P", "-a", "-S", "now-1hours", "-o",
                        "JobName,Submit,Start,End")
        out = {}
        for line in rows.splitlines():
            name, *stamps = line.split("|")
            if name not in self.jobs:
                continue
            when = [None if s in ("Unknown", "None", "") else
                    time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S")) for s in stamps]
            out[name] = dict(zip(("submit", "start", "end"), when), project=self.jobs[name][0],
                             gpus=self.jobs[name][1])
        return out


def wait_until(what, condition, timeout=300, every=0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError("%s: not within %d s" % (what, timeout))
        time.sleep(every)


def running(snapshot, names):
    return [n for n in names if n in snapshot and snapshot[n]["start"] and not snapshot[n]["end"]]


def starvation(system, seconds):
    first = {"s_first%d" % i: d for i, d in enumerate((10, 15, 20, 25))}
    for name, d in first.items():
        system.submit(name, "a", 1, d)
    seen = wait_until("four 1-GPU jobs running",
                      lambda: (lambda s: s if len(running(s, first)) == 4 else None)(
                          system.snapshot()))
    system.submit("s_gang", "a", GPUS, seconds)
    later = ["s_later%d" % i for i in range(6)]
    for name in later:
        system.submit(name, "a", 1, seconds)
    every = list(first) + ["s_gang"] + later
    done = wait_until("every job ended",
                      lambda: (lambda s: s if all(s.get(n, {}).get("end") for n in every)
                               else None)(system.snapshot()), every=0.5)
    gang = done["s_gang"]
    bound = max(seen[n]["start"] + d for n, d in first.items()) - gang["submit"]
    return {"gang_wait_s": gang["start"] - gang["submit"], "bound_s": bound,
            "later_started_before_gang": sum(done[n]["start"] < gang["start"] for n in later),
            "jobs_completed": len(done), "jobs": done}


def share(system, window, seconds):
    per_project = GPUS * window // seconds + GPUS
    t0 = time.time()
    for i in range(per_project):
        for project in ("a", "b"):
            system.submit("%s_%d" % (project, i), project, 1, seconds)
    submitted = time.time() - t0
    time.sleep(max(0.0, t0 + window - time.time()))
    snap = system.snapshot()
    start = min(j["submit"] for j in snap.values())
    end = start + window
    used = {"a": 0.0, "b": 0.0}
    completed = {"a": 0, "b": 0}
    for job in snap.values():
        if job["start"] is None:
            continue
        stop = min(job["end"] or end, end)
        used[job["project"]] += job["gpus"] * max(0.0, stop - max(job["start"], start))
        completed[job["project"]] += bool(job["end"] and job["end"] <= end)
    total = sum(used.values())
    result = {"share": {p: u / total for p, u in used.items()} if total else {},
              "gpu_seconds": used, "utilisation": total / (GPUS * window),
              "jobs_completed": completed, "submit_s": submitted,
              "per_project_backlog": per_project, "jobs": snap}
    if isinstance(system, Slurm):
        result["sshare"] = system.sshare()
    return result


def side_by_side(systems, case, *args):
    """Runs `case` on every system at once, one thread each; {system name: result}."""
    results, errors = {}, []

    def one(system):
        try:
            results[system.name] = case(system, *args)
        except Exception as e:  # noqa: BLE001 (reported below, with the system's name)
            errors.append("%s: %s" % (system.name, e))
    threads = [threading.Thread(target=one, args=(s,)) for s in systems]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError("; ".join(errors))
    return results


def with_systems(args, work, weights, case, *case_args):
    systems = []
    try:
        systems.append(Trainyard(args.trainyard, work, weights))
        systems.append(Slurm(work, args.state_dir, args.port_base, weights))
        return side_by_side(systems, case, *case_args)
    finally:
        for s in systems:
            s.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trainyard", required=True)
    parser.add_argument("--window", type=int, default=180)
    parser.add_argument("--job-seconds", type=int, default=10)
    parser.add_argument("--state-dir", default="/var/tmp/trainyard-share-slurm")
    parser.add_argument("--port-base", type=int, default=17817)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    args.trainyard = os.path.abspath(args.trainyard)
    out = {"when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": lib.machine(), "window_s": args.window, "job_s": args.job_seconds,
           "limit_s": LIMIT_S, "slurm_priority": SLURM_PRIORITY}
    with tempfile.TemporaryDirectory(prefix="trainyard-slurm-compare-") as work:
        lib.log("starvation case")
        out["starvation"] = with_systems(args, work, {"a": 1}, starvation, args.job_seconds)
        for name, weights in (("share_1_1", {"a": 1, "b": 1}), ("share_2_1", {"a": 2, "b": 1})):
            lib.log("%s case (%d s)" % (name, args.window))
            out[name] = with_systems(args, work, weights, share, args.window, args.job_seconds)
    out["machine_after"] = lib.machine()
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True))
    report(out)


def report(out):
    print("4 emulated T4s, time limit %d s on every job, jobs of %d s; load average %s → %s"
          % (out["limit_s"], out["job_s"], " ".join(out["machine"]["loadavg"]),
             " ".join(out["machine_after"]["loadavg"])))
    print("\n| case | figure | trainyard | Slurm 22.05 (multifactor fair-share, backfill) |")
    print("|---|---|---|---|")
    st = out["starvation"]
    print("| starvation | 4-GPU job's wait (bound: longest running job's remaining time) | "
          "%.1f s (bound %.1f s) | %.0f s (bound %.0f s) |"
          % (st["trainyard"]["gang_wait_s"], st["trainyard"]["bound_s"],
             st["slurm"]["gang_wait_s"], st["slurm"]["bound_s"]))
    print("| starvation | later 1-GPU jobs started before it; jobs completed | %d of 6; %d | "
          "%d of 6; %d |" % (st["trainyard"]["later_started_before_gang"],
                             st["trainyard"]["jobs_completed"],
                             st["slurm"]["later_started_before_gang"],
                             st["slurm"]["jobs_completed"]))
    for name, label in (("share_1_1", "weights 1:1"), ("share_2_1", "weights 2:1")):
        case = out[name]
        cells = []
        for system in ("trainyard", "slurm"):
            r = case[system]
            cells.append("a %.1f %% / b %.1f %%; utilisation %.1f %%; completed a %d, b %d"
                         % (100 * r["share"]["a"], 100 * r["share"]["b"],
                            100 * r["utilisation"], r["jobs_completed"]["a"],
                            r["jobs_completed"]["b"]))
        print("| %s | GPU-seconds share over the first %d s; utilisation; jobs completed | %s |"
              " %s |" % (label, out["window_s"], cells[0], cells[1]))
    for name in ("share_1_1", "share_2_1"):
        print("\nsshare at the end of %s:\n%s" % (name, out[name]["slurm"]["sshare"]))


if __name__ == "__main__":
    main()
