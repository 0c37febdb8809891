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

Knobs (environment): TY_KILL_ROUNDS (10), TY_KILL_CLIENTS (4), TY_KILL_SECONDS (2.0: the
longest run of a server between two kills; each run lasts a random 0.3 s to that),
TY_KILL_FIGURES (a path: the figures as JSON, for bench/restart/run.sh). The figures are printed
either way.

Usage: kill_restart_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import ctypes
import http.client
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

TRAINYARD = None  # set by main()
PROJECT = "kill"
ROUNDS = int(os.environ.get("TY_KILL_ROUNDS", "10"))
CLIENTS = int(os.environ.get("TY_KILL_CLIENTS", "4"))
MAX_UP_S = float(os.environ.get("TY_KILL_SECONDS", "2.0"))
FIGURES = os.environ.get("TY_KILL_FIGURES", "")
SUBMIT_PAUSE_S = 0.1  # each client's pause between creates: about 10 jobs/s per client
END_TIMEOUT_S = 300  # for every job to end after the last restart, on a loaded 2-core machine
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
PR_SET_CHILD_SUBREAPER = 36

# The trainer: $1 is its marks file, $2 how long it works. The lock is held by the shell and the
# sleep (fd 9 is inherited), so a second run of the same job while the first works is seen.
TRAINER = r"""
marks=$1
echo "start $$" >> "$marks"
exec 9>>"$marks.lock"
flock -n 9 || echo "concurrent $$" >> "$marks"
sleep "$2"
echo "end $$" >> "$marks"
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, timeout=10):
    """(status, parsed JSON body); raises OSError / http.client errors when the server is gone."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body)
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        reply = conn.getresponse()
        text = reply.read()
        try:
            return reply.status, json.loads(text)
        except ValueError:
            return reply.status, {"text": text.decode(errors="replace")}
    finally:
        conn.close()


def percentile(values, q):
    xs = sorted(values)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else 0.0


class Server:
    """One `trainyard serve` process on a fixed port; its output appended to `log_path`."""

    def __init__(self, data, port, log_path):
        self.args = [TRAINYARD, "serve", "--listen", "127.0.0.1:%d" % port, "--data-dir", data,
                     "--containers", "host", "--stop-grace", "2"]
        self.port = port
        self.log_path = log_path
        self.proc = None

    def start(self, timeout=60):
        """Starts it and returns the seconds until it answered /healthz."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        t0 = time.monotonic()
        with open(self.log_path, "a", encoding="utf-8") as log:
            self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=log, env=env)
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError("trainyard serve exited with %s:\n%s" %
                                   (self.proc.returncode, self.log()))
            try:
                if request(self.port, "GET", "/healthz", timeout=2)[0] == 200:
                    return time.monotonic() - t0
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.01)
        raise RuntimeError("trainyard serve did not answer within %d s:\n%s" %
                           (timeout, self.log()))

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self, timeout=30):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode if self.proc else None

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()[-4000:]


class Clients:
    """CLIENTS threads creating jobs until stopped; each outcome recorded per job id."""

    def __init__(self, port, marks_dir):
        self.port = port
        self.marks = marks_dir
        self.acknowledged = set()
        self.unanswered = set()  # the connection died: the job may or may not exist
        self.refused = {}  # an answer other than 200: id -> (status, body)
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True)
                        for i in range(CLIENTS)]

    def job(self, job_id, rng):
        marks = os.path.join(self.marks, job_id)
        command = ["/bin/sh", "-c", TRAINER, "trainer", marks, "%.2f" % rng.uniform(0.2, 1.0)]
        return {"jobId": job_id, "trainingInput": {
            "region": "us-central1",
            "masterConfig": {"imageUri": "kill/local", "containerCommand": command}}}

    def run(self, client):
        rng = random.Random(client)
        n = 0
        while not self.done.is_set():
            job_id = "k%d_%05d" % (client, n)
            n += 1
            try:
                status, body = request(self.port, "POST", "/v1/projects/%s/jobs" % PROJECT,
                                       self.job(job_id, rng))
            except (OSError, http.client.HTTPException):
                with self.lock:
                    self.unanswered.add(job_id)
                time.sleep(0.05)  # the server is down: wait for the next one
                continue
            with self.lock:
                if status == 200:
                    self.acknowledged.add(job_id)
                else:
                    self.refused[job_id] = (status, body)
            time.sleep(SUBMIT_PAUSE_S)

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        for thread in self.threads:
            thread.join(30)


def descendants_left(markers):
    """[(pid, command line)] of the processes whose command line names one of `markers`."""
    left = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(marker in cmdline for marker in markers):
            left.append((int(name), cmdline.strip()))
    return left


def reap_orphans(keep):
    """Reaps the zombies re-parented to this process (its child subreaper), but `keep`."""
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in keep:
            continue
        try:
            with open("/proc/%s/stat" % name, encoding="utf-8") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            try:
                os.waitpid(int(name), os.WNOHANG)
            except ChildProcessError:
                pass


class KillRestartTest(unittest.TestCase):
    """One run of ROUNDS kills, shared by the tests; each checks one promise."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-kill-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.marks = os.path.join(cls.tmp, "marks")
        os.makedirs(cls.marks)
        cls.port = free_port()
        cls.server = Server(cls.data, cls.port, os.path.join(cls.tmp, "serve.log"))
        cls.recover_s = []
        cls.t0 = time.monotonic()
        try:
            cls.server.start()
            rng = random.Random(17)
            with Clients(cls.port, cls.marks) as cls.clients:
                for _ in range(ROUNDS):
                    time.sleep(rng.uniform(0.3, MAX_UP_S))
                    cls.server.kill()
                    reap_orphans({cls.server.proc.pid})
                    cls.recover_s.append(cls.server.start())
                time.sleep(0.5)  # the last server takes some jobs too
            cls.killed_s = time.monotonic() - cls.t0
            cls.jobs = cls.wait_for_all_ended()
            cls.stop_rc = cls.server.stop()
            reap_orphans(set())
            cls.left = descendants_left([cls.data, cls.marks])
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
    def tearDownClass(cls):
        if not os.environ.get("TY_KILL_KEEP"):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def list_jobs(cls):
        jobs, token = [], ""
        while True:
            path = "/v1/projects/%s/jobs?pageSize=1000" % PROJECT
            status, body = request(cls.port, "GET", path + ("&pageToken=" + token if token else ""))
            if status != 200:
                raise RuntimeError("jobs.list: %d %s" % (status, body))
            jobs += body.get("jobs", [])
            token = body.get("nextPageToken", "")
            if not token:
                return jobs

    @classmethod
    def wait_for_all_ended(cls):
        deadline = time.monotonic() + END_TIMEOUT_S
        while True:
            jobs = cls.list_jobs()
            if all(j.get("state") in TERMINAL for j in jobs) or time.monotonic() > deadline:
                return jobs
            reap_orphans({cls.server.proc.pid})
            time.sleep(0.2)

    @classmethod
    def marks_of(cls, job_id):
        """{"start": n, "end": n, "concurrent": n} from the job's marks file."""
        counts = {"start": 0, "end": 0, "concurrent": 0}
        try:
            with open(os.path.join(cls.marks, job_id), encoding="utf-8") as f:
                for line in f:
                    counts[line.split()[0]] += 1
        except FileNotFoundError:
            pass
        return counts

    @classmethod
    def compute_figures(cls):
        ids = [j["jobId"] for j in cls.jobs]
        existing = set(ids)
        acked = cls.clients.acknowledged
        marks = {job_id: cls.marks_of(job_id) for job_id in existing}
        ran = {name for name in os.listdir(cls.marks) if not name.endswith(".lock")}
        states = {}
        for job in cls.jobs:
            states[job["state"]] = states.get(job["state"], 0) + 1
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
            "concurrent_runs": sorted(i for i, m in marks.items() if m["concurrent"] > 0),
            "reruns": sorted(i for i, m in marks.items() if m["start"] > 1),
            "ran_without_job": sorted(ran - existing),
            "not_succeeded": {j["jobId"]: [j["state"], j.get("errorMessage", "")]
                              for j in cls.jobs if j["state"] != "SUCCEEDED"},
            "orphans": [cmd for _, cmd in cls.left],
            "server_stop_rc": cls.stop_rc,
            "recover_s_p50": round(statistics.median(cls.recover_s), 3) if cls.recover_s else 0,
            "recover_s_max": round(max(cls.recover_s), 3) if cls.recover_s else 0,
            "kill_phase_s": round(cls.killed_s, 1), "total_s": round(cls.total_s, 1),
        }

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
        missing = sorted(j["jobId"] for j in self.jobs
                         if j["state"] == "SUCCEEDED" and self.marks_of(j["jobId"])["end"] != 1)
        self.assertEqual(missing, [])

    def test_no_process_left(self):
        self.assertEqual(self.figures["orphans"], [])

    def test_server_stops_cleanly(self):
        self.assertEqual(self.stop_rc, 0, self.server.log())

    def test_database_intact(self):
        db = sqlite3.connect(os.path.join(self.data, "trainyard.db"))
        try:
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
        finally:
            db.close()


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
