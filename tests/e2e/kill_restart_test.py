#!/usr/bin/python3
"""`trainyard serve` killed with SIGKILL at random moments while clients submit jobs (issue #17).

Client threads POST jobs (`/v1/projects/P/jobs`) without pause while the server is SIGKILLed at
a random moment and started again on the same data dir and port, TY_KILL_ROUNDS times. Each
job runs a small shell trainer on the host (`--containers host`) that appends "start PID" to a
file named after its job, holds an exclusive lock on it while it works, and appends "end PID"
when done ("concurrent PID" when another run of the same job held the lock). Afterwards:

  * no acknowledged job is lost: every job whose create was answered 200 exists;
  * none is duplicated: no job id twice in the list, and every SUCCEEDED job's trainer ran to
    its end exactly once, never two runs at a time. What the executor guarantees (control/,
    ARCHITECTURE.md "Restarts"): a RUNNING job's replicas are adopted by the next server, never
    started again; a PREPARING job's replicas (if its launch had begun) are killed and the job
    goes back to the queue. So a trainer may have *started* more than once, but every start but
    the last must have been killed before its end (counted as `reruns`);
  * every job ends SUCCEEDED (the trainer exits 0; a server restart must not fail a job);
  * no trainer or trainyard-replica process is left once every job ended and the server stopped
    (this test is the child subreaper of what the killed servers leave, so it sees every one),
    and trainyard.db passes `PRAGMA integrity_check`.

A client whose request got no answer (the connection died with the server) may or may not have
its job; both are fine, and an existing job must still run once.

Staging is in the mix (issue #31): a share of the jobs (TY_KILL_STAGING) runs a small Python
package from the server's `--package-dir` instead of the shell trainer. Each round adds new
packages (TY_KILL_PACKAGES), so the package cache installs new keys all along and SIGKILLs land
while jobs are PREPARING: waiting for a key's lock, or installing. A package's setup.py (run by
the install) prints "install-start"/"install-end" lines with the time into the job's
staging.log, sleeps 0.3-1 s and, under --run-as (where an install runs in a PID namespace of
its own), starts a `setsid` child, a long sleep whose command line carries the run's marker.
Its trainer does the shell trainer's start/lock/end bookkeeping in Python and, under --run-as
(where a replica runs in a PID namespace of its own), starts such a child too. As root the server runs as
in production, `--auth tokens --run-as trainyard-job` (the clients send an editor token; the
marks files lie in a bucket of the project, the place a job may write); otherwise (or with
TY_KILL_RUN_AS=0) without either. Further checks:

  * the server never ended but by the test's SIGKILLs (each run was still alive when killed, and
    its exit was SIGKILL), every restart answered /healthz, the final stop exited 0, and its
    output holds no "terminate called", sanitizer report or "runtime error:";
  * no process carrying the run's markers is left: trainers, installs (pip or the install
    script, and the server's forks that wait for it), their setsid children, `trainyard-replica`
    supervisors; the same markers are counted every 0.2 s until every job ended, and must have
    found each kind running (so that none left means something);
  * every package a job used was installed (an entry in the cache), and each staging job's
    trainer ran to its end once, as the shell trainers;
  * no job's IPC namespace is left mounted once the server stopped (a server killed between a
    job's end and its release leaves it to the next one).

Processes are found by markers in their command lines (the run's temp dir, a random marker),
never by the pids a job reports: a job's pids are those of its own PID namespace.

Knobs (environment): TY_KILL_ROUNDS (10), TY_KILL_CLIENTS (4), TY_KILL_SECONDS (2.0: the
longest run of a server between two kills; each run lasts a random 0.3 s to that),
TY_KILL_STAGING (0.1: the share of jobs with a package; bench/restart/run.sh makes it 0.25),
TY_KILL_PACKAGES (1: new packages per round; the bench makes it 2), TY_KILL_RUN_AS (1: run-as
and tokens when root; 0: never), TY_KILL_DOWN_S (0: how long the server stays down after a
kill), TY_KILL_FIGURES (a path: the figures as JSON, for
bench/restart/run.sh), TY_KILL_KEEP (keep the temp dir). The figures are printed either way.

Usage: kill_restart_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import ctypes
import json
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)
import kill_restart_harness as harness  # noqa: E402
from kill_restart_harness import (  # noqa: E402
    CLIENTS, CRASH_SIGNS, PROJECT, PR_SET_CHILD_SUBREAPER, STAGING, TERMINAL, Clients, Server,
    free_port, list_jobs, marks_of, reap_orphans, request)

ROUNDS = int(os.environ.get("TY_KILL_ROUNDS", "10"))
MAX_UP_S = float(os.environ.get("TY_KILL_SECONDS", "2.0"))
PACKAGES_PER_ROUND = int(os.environ.get("TY_KILL_PACKAGES", "1"))
RUN_AS = os.environ.get("TY_KILL_RUN_AS", "1") != "0"
DOWN_S = float(os.environ.get("TY_KILL_DOWN_S", "0"))  # the wait between a kill and the restart
FIGURES = os.environ.get("TY_KILL_FIGURES", "")
MARKS_BUCKET = "kill-marks"  # under --run-as the marks files lie in this bucket of PROJECT
END_TIMEOUT_S = 300  # for every job to end after the last restart, on a loaded 2-core machine

# The lines of TRAINER_PY and SETUP_PY that start (CHILD_MARKER not empty) a `setsid` child: a
# long sleep whose argv[0] is the marker, its stdio on /dev/null.
START_MARKED_CHILD = r"""if CHILD_MARKER and os.fork() == 0:
    try:
        os.setsid()
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.execv("/bin/sleep", [CHILD_MARKER, "1000"])
    finally:
        os._exit(127)
"""

# A staging job's trainer (the module `task` of its package): the shell trainer's bookkeeping,
# and (CHILD_MARKER not empty) a `setsid` child first, a long sleep whose argv[0] is the marker.
TRAINER_PY = r"""import fcntl, os, sys, time
CHILD_MARKER = %(child)r
marks, seconds = sys.argv[1], float(sys.argv[2])
def mark(word):
    with open(marks, "a") as f:
        f.write("%%s %%d\n" %% (word, os.getpid()))
mark("start")
lock = open(marks + ".lock", "a")  # not inherited by the child (close-on-exec)
try:
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    mark("concurrent")
""" + START_MARKED_CHILD + r"""time.sleep(seconds)
mark("end")
"""

# A staging package's setup.py, run by the install (in the install script's interpreter, or by
# pip): says when it starts and ends in the job's staging.log, starts a marked `setsid` child
# (CHILD_MARKER not empty) and works SECONDS before it builds.
SETUP_PY = r"""import os, sys, time
NAME, SECONDS, CHILD_MARKER = %(name)r, %(seconds)r, %(child)r
print("install-start %%s %%.6f" %% (NAME, time.time()), flush=True)
""" + START_MARKED_CHILD + r"""time.sleep(SECONDS)
print("install-end %%s %%.6f" %% (NAME, time.time()), flush=True)
from setuptools import setup
setup(name=NAME, version="0.1", packages=[NAME])
"""


def percentile(values, q):
    xs = sorted(values)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else 0.0



def by_kind(processes, marker):
    """{kind: count} of gcloud_env.marked_processes's list: supervisors, servers' forks, installs, the
    setsid children of installs and of trainers, trainers, and anything else."""
    kinds = {}
    for _, cmdline in processes:
        program = cmdline.split(" ", 1)[0]
        if program.endswith("trainyard-replica"):
            kind = "replica"  # a supervisor, or its child the namespace's init
        elif program.endswith("trainyard") and " serve " in cmdline:
            kind = "server_fork"  # a server's child that did not exec (pip's, outside its PID
            # namespace), or a server of the run
        elif "trainyard-wheel" in cmdline or " pip " in cmdline or "-m pip" in cmdline:
            kind = "install"  # the install script (run/local/install_script.h) or pip
        elif marker and cmdline.startswith(marker + "-staging"):
            kind = "install_child"
        elif marker and cmdline.startswith(marker + "-trainer"):
            kind = "trainer_child"
        elif "flock -n 9" in cmdline or ".task " in cmdline:
            kind = "trainer"
        else:
            kind = "other"
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds



class KillRestartTest(unittest.TestCase):
    """One run of ROUNDS kills, shared by the tests; each checks one promise."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
        cls.run_as = RUN_AS and os.geteuid() == 0
        if cls.run_as:
            _, cls.tmp = gcloud_env.run_as_setup("trainyard-e2e-kill-")
        else:
            cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-kill-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.package_dir = os.path.join(cls.tmp, "packages")
        os.makedirs(cls.package_dir)
        os.chmod(cls.package_dir, 0o755)
        # Under --run-as, replicas and installs run in PID namespaces of their own: the setsid
        # children they start must end with them. Elsewhere nothing ends such a child
        # (docs/security.md), so none is started.
        cls.marker = "trainyard-kill-" + uuid.uuid4().hex
        cls.child_marker = cls.marker if cls.run_as else ""
        cls.install_child_marker = cls.marker if cls.run_as else ""
        extra = ["--package-dir", cls.package_dir]
        if cls.run_as:
            cls.create_token()
            extra += ["--auth", "tokens", "--run-as", gcloud_env.JOB_USER]
            cls.marks = os.path.join(cls.data, "buckets", MARKS_BUCKET)
        else:
            cls.marks = os.path.join(cls.tmp, "marks")
            os.makedirs(cls.marks)
        cls.port = free_port()
        cls.server = Server(cls.data, cls.port, os.path.join(cls.tmp, "serve.log"), extra)
        cls.recover_s = []
        cls.at_kills = []  # running() just before each kill
        cls.seen = {}  # the most processes of each kind running() found at once, in the run
        cls.packages_made = 0
        cls.t0 = time.monotonic()
        try:
            cls.server.start()
            if cls.run_as:
                status, body = request(cls.port, "POST", "/storage/v1/b?project=" + PROJECT,
                                       {"name": MARKS_BUCKET})
                if status != 200 or not os.path.isdir(cls.marks):
                    raise RuntimeError("the marks bucket: %d %s" % (status, body))
            rng = random.Random(17)
            package_rng = random.Random(31)  # the kills' moments as without staging
            sampling = threading.Event()
            sampler = threading.Thread(target=cls.sample, args=(sampling,), daemon=True)
            sampler.start()
            with Clients(cls.port, cls.marks) as cls.clients:
                for round_ in range(ROUNDS):
                    cls.clients.packages = cls.make_packages(round_, package_rng)
                    time.sleep(rng.uniform(0.3, MAX_UP_S))
                    cls.at_kills.append(cls.running())
                    cls.server.kill()
                    reap_orphans({cls.server.proc.pid})
                    time.sleep(DOWN_S)
                    cls.recover_s.append(cls.server.start())
                time.sleep(0.5)  # the last server takes some jobs too
            cls.killed_s = time.monotonic() - cls.t0
            cls.jobs = cls.wait_for_all_ended()
            sampling.set()
            sampler.join(30)
            cls.stop_rc = cls.server.stop()
            reap_orphans(set())
            cls.left = cls.marked()
            cls.total_s = time.monotonic() - cls.t0
            cls.figures = cls.compute_figures()
        except Exception:
            cls.server.stop()
            raise
        print(json.dumps(cls.figures, indent=1), flush=True)
        if FIGURES:
            with open(FIGURES, "w", encoding="utf-8") as f:
                json.dump(cls.figures, f, indent=1)

    @classmethod
    def create_token(cls):
        """An editor token of PROJECT, made before the server starts (harness.TOKEN)."""
        made = subprocess.run([harness.TRAINYARD, "auth", "create-token", "kill-client", "--role",
                               "editor", "--project", PROJECT, "--data-dir", cls.data],
                              capture_output=True, text=True, timeout=60, check=False)
        if made.returncode != 0:
            raise RuntimeError("create-token: %r" % gcloud_env.Run(made))
        harness.TOKEN = made.stdout.strip()

    @classmethod
    def make_packages(cls, round_, rng):
        """PACKAGES_PER_ROUND new sdists for round `round_`: [(path, package name)]."""
        if STAGING <= 0:
            return []
        made = []
        for k in range(PACKAGES_PER_ROUND):
            name = "tykill_r%d_%d" % (round_, k)
            path = os.path.join(cls.package_dir, name + "-0.1.tar.gz")
            child = cls.install_child_marker and cls.install_child_marker + "-staging-" + name
            gcloud_env.make_sdist(path, name, {
                "setup.py": SETUP_PY % {"name": name, "seconds": round(rng.uniform(0.3, 1.0), 2),
                                        "child": child},
                name + "/__init__.py": "",
                name + "/task.py": TRAINER_PY % {
                    "child": cls.child_marker and cls.child_marker + "-trainer-" + name}})
            made.append((path, name))
        cls.packages_made += len(made)
        return made

    @classmethod
    def running(cls):
        """by_kind of the run's processes now, the current server left out."""
        proc = cls.server.proc
        server = proc.pid if proc is not None and proc.poll() is None else None
        return by_kind([p for p in cls.marked() if p[0] != server], cls.marker)

    @classmethod
    def sample(cls, done):
        """Until `done`: running() every 0.2 s, its counts' maxima into cls.seen."""
        while not done.wait(0.2):
            for kind, count in cls.running().items():
                cls.seen[kind] = max(cls.seen.get(kind, 0), count)

    @classmethod
    def marked(cls):
        """The processes carrying a marker of this run: its temp dir (the data dir, the marks,
        the packages: trainers, supervisors, installs) or its random marker (setsid children)."""
        return gcloud_env.marked_processes(cls.tmp, cls.marker)

    @classmethod
    def tearDownClass(cls):
        if not os.environ.get("TY_KILL_KEEP"):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def wait_for_all_ended(cls):
        deadline = time.monotonic() + END_TIMEOUT_S
        while True:
            jobs = list_jobs(cls.port)
            if all(j.get("state") in TERMINAL for j in jobs) or time.monotonic() > deadline:
                return jobs
            reap_orphans({cls.server.proc.pid})
            time.sleep(0.2)

    @classmethod
    def ipc_namespaces_left(cls):
        """The jobs' IPC namespaces still mounted under the data dir's private root
        (app/job_isolation.h) once the server stopped: a job's is released when it ends, or
        by the next server when a kill came first."""
        data = os.stat(cls.data)
        root = "/dev/shm/trainyard-%d-%d/" % (data.st_dev, data.st_ino)
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            return sorted(line.split()[4] for line in f if line.split()[4].startswith(root))

    @classmethod
    def compute_figures(cls):
        ids = [j["jobId"] for j in cls.jobs]
        existing = set(ids)
        acked = cls.clients.acknowledged
        marks = {job_id: marks_of(cls.marks, job_id) for job_id in existing}
        ran = {name for name in os.listdir(cls.marks) if not name.endswith(".lock")}
        states = {}
        for job in cls.jobs:
            states[job["state"]] = states.get(job["state"], 0) + 1
        staging = cls.clients.staging & existing
        installs = cls.installs()
        entries = cls.cache_entries()
        used = {job["trainingInput"]["pythonModule"].rsplit(".", 1)[0] for job in cls.jobs
                if job["jobId"] in staging}
        left = by_kind(cls.left, cls.marker)
        log = cls.server.log(whole=True)
        return {
            "rounds": ROUNDS, "clients": CLIENTS, "max_up_s": MAX_UP_S,
            "submitted": len(acked) + len(cls.clients.unanswered) + len(cls.clients.refused),
            "acknowledged": len(acked),
            "unanswered": len(cls.clients.unanswered),
            "unanswered_but_created": len(cls.clients.unanswered & existing),
            "refused": len(cls.clients.refused),
            "jobs": len(ids), "states": states,
            "lost": sorted(acked - existing),
            "duplicate_ids": sorted({i for i in ids if ids.count(i) > 1}),
            "ran_to_end_twice": sorted(i for i, m in marks.items() if m["end"] > 1),
            "ran_to_end_twice_staging": sorted(i for i, m in marks.items()
                                               if m["end"] > 1 and i in staging),
            "concurrent_runs": sorted(i for i, m in marks.items() if m["concurrent"] > 0),
            "reruns": sorted(i for i, m in marks.items() if m["start"] > 1),
            "ran_without_job": sorted(ran - existing),
            "not_succeeded": {j["jobId"]: [j["state"], j.get("errorMessage", "")]
                              for j in cls.jobs if j["state"] != "SUCCEEDED"},
            "orphans": [cmd for _, cmd in cls.left],
            "left_by_kind": left,
            "run_as": cls.run_as, "setsid_children": {
                "trainers": bool(cls.child_marker), "installs": bool(cls.install_child_marker)},
            "staging_share": STAGING, "packages_made": cls.packages_made,
            "staging_jobs": len(staging),
            "staging_jobs_succeeded_once": sum(
                1 for j in cls.jobs if j["jobId"] in staging and j["state"] == "SUCCEEDED"
                and marks[j["jobId"]]["end"] == 1),
            "packages_used": len(used),
            "packages_used_not_in_cache": sorted(used - entries),
            "packages_in_cache": len(entries),
            "installs_started": installs["start"],
            "installs_ran_to_end": installs["end"],
            "installs_killed_midway": installs["start"] - installs["end"],
            "kills_during_installs": sum(1 for k in cls.at_kills if k.get("install")),
            "seen_running_max": dict(sorted(cls.seen.items())),
            "install_processes_left": sum(left.get(kind, 0) for kind in
                                          ("install", "install_child", "server_fork")),
            "replicas_left": left.get("replica", 0),
            "server_exits_at_kills": sorted(set(map(str, cls.server.exits))),
            "server_ended_by_itself": [e for e in cls.server.exits if e != -signal.SIGKILL],
            "restarts_answered": len(cls.recover_s),
            "crash_signs": sorted({sign for sign in CRASH_SIGNS if sign in log}),
            "server_stop_rc": cls.stop_rc,
            "ipc_namespaces_left": cls.ipc_namespaces_left(),
            "recover_s_p50": round(statistics.median(cls.recover_s), 3) if cls.recover_s else 0,
            "recover_s_max": round(max(cls.recover_s), 3) if cls.recover_s else 0,
            "kill_phase_s": round(cls.killed_s, 1), "total_s": round(cls.total_s, 1),
        }

    @classmethod
    def installs(cls):
        """{"start": n, "end": n}: the setup.py lines of every job's staging.log."""
        counts = {"start": 0, "end": 0}
        jobs_dir = os.path.join(cls.data, "jobs", PROJECT)
        for job_id in cls.clients.staging:
            try:
                with open(os.path.join(jobs_dir, job_id, "staging.log"), encoding="utf-8",
                          errors="replace") as f:
                    for line in f:
                        if line.startswith("install-start "):
                            counts["start"] += 1
                        elif line.startswith("install-end "):
                            counts["end"] += 1
            except FileNotFoundError:
                pass
        return counts

    @classmethod
    def cache_entries(cls):
        """The package names installed in the cache's whole entries (those with a manifest)."""
        names = set()
        cache = os.path.join(cls.data, "packages")
        for key in os.listdir(cache) if os.path.isdir(cache) else []:
            entry = os.path.join(cache, key)
            if os.path.exists(os.path.join(entry, ".trainyard-entry")):
                names.update(n for n in os.listdir(entry) if n.startswith("tykill_")
                             and "." not in n and os.path.isdir(os.path.join(entry, n)))
        return names

    # -- the promises -------------------------------------------------------------------------

    def test_no_acknowledged_job_is_lost(self):
        self.assertGreater(len(self.clients.acknowledged), 0)
        self.assertEqual(self.figures["lost"], [])

    def test_only_acknowledged_or_unanswered_jobs_exist(self):
        unexpected = {j["jobId"] for j in self.jobs} - self.clients.acknowledged - \
            self.clients.unanswered
        self.assertEqual(sorted(unexpected), [])
        self.assertEqual(self.clients.refused, {})

    def test_no_job_id_twice(self):
        self.assertEqual(self.figures["duplicate_ids"], [])

    def test_every_job_ended_succeeded(self):
        self.assertEqual(self.figures["not_succeeded"], {}, self.server.log())

    def test_every_trainer_ran_to_its_end_once(self):
        self.assertEqual(self.figures["ran_to_end_twice"], [])
        self.assertEqual(self.figures["concurrent_runs"], [])
        self.assertEqual(self.figures["ran_without_job"], [])
        missing = sorted(j["jobId"] for j in self.jobs if j["state"] == "SUCCEEDED"
                         and marks_of(self.marks, j["jobId"])["end"] != 1)
        self.assertEqual(missing, [])

    def test_no_process_left(self):
        self.assertEqual(self.figures["orphans"], [])
        self.assertEqual(self.figures["left_by_kind"], {})

    def test_no_ipc_namespace_left(self):
        self.assertEqual(self.figures["ipc_namespaces_left"], [])

    def test_staging_was_in_the_mix(self):
        """Staging jobs ran, and the markers found installs, their children and trainers while
        they ran (so that none left at the end means something)."""
        if STAGING <= 0:
            self.skipTest("TY_KILL_STAGING=0")
        figures = self.figures
        self.assertGreater(figures["staging_jobs"], 0)
        self.assertEqual(figures["staging_jobs_succeeded_once"], figures["staging_jobs"])
        self.assertGreater(figures["installs_started"], 0)
        self.assertEqual(figures["packages_used_not_in_cache"], [])
        seen = figures["seen_running_max"]
        for kind in ("replica", "trainer", "install"):
            self.assertGreater(seen.get(kind, 0), 0, (kind, seen))
        if self.child_marker:
            self.assertGreater(seen.get("trainer_child", 0), 0, seen)
        if self.install_child_marker:
            self.assertGreater(seen.get("install_child", 0), 0, seen)

    def test_server_never_crashed(self):
        """Each run ended by the test's SIGKILL (alive until then), each restart answered
        /healthz, and no run's output shows a crash."""
        self.assertEqual(self.figures["server_ended_by_itself"], [])
        self.assertEqual(self.figures["restarts_answered"], ROUNDS)
        self.assertEqual(self.figures["crash_signs"], [], self.server.log())

    def test_server_stops_cleanly(self):
        self.assertEqual(self.stop_rc, 0, self.server.log())

    def test_database_intact(self):
        db = sqlite3.connect(os.path.join(self.data, "trainyard.db"))
        try:
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
        finally:
            db.close()


if __name__ == "__main__":
    gcloud_env.main(__doc__, lambda path: setattr(harness, "TRAINYARD", path))
