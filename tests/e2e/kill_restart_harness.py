#!/usr/bin/python3
"""The server and the clients of the kill-and-restart tests (kill_restart_test.py and
kill_restart_sharing_test.py): `trainyard serve` started, SIGKILLed and stopped on a fixed port
(`Server`), client threads creating jobs and recording each outcome (`Clients`), the shell
trainer those jobs run with its marks file (`TRAINER`, `marks_of`), the calls both make
(`request`, `list_jobs`) and the reaping of what a killed server leaves (`reap_orphans`, with
this process the child subreaper). The knobs TY_KILL_CLIENTS and TY_KILL_STAGING are read here;
kill_restart_test.py says what each does.
"""

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import threading
import time

TRAINYARD = None  # set by the test's main()
PROJECT = "kill"
CLIENTS = int(os.environ.get("TY_KILL_CLIENTS", "4"))
STAGING = float(os.environ.get("TY_KILL_STAGING", "0.1"))
SUBMIT_PAUSE_S = 0.1  # each client's pause between creates: about 10 jobs/s per client
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

# What a server's output must never hold: a crash of its own, not the test's SIGKILL.
# (an uncaught exception, a sanitizer's report, a failed TY_CHECK or assert)
CRASH_SIGNS = ("terminate called", "Sanitizer", "runtime error:", "check failed:",
               "Assertion `")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


TOKEN = ""  # the editor token of PROJECT under --auth tokens


def request(port, method, path, body=None, timeout=10):
    """(status, parsed JSON body); raises OSError / http.client errors when the server is gone."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"}
        if TOKEN:
            headers["Authorization"] = "Bearer " + TOKEN
        conn.request(method, path, body=data, headers=headers)
        reply = conn.getresponse()
        text = reply.read()
        try:
            return reply.status, json.loads(text)
        except ValueError:
            return reply.status, {"text": text.decode(errors="replace")}
    finally:
        conn.close()


def list_jobs(port, project=PROJECT):
    """Every job of `project` (ml v1 jobs.list, page by page)."""
    jobs, token = [], ""
    while True:
        path = "/v1/projects/%s/jobs?pageSize=1000" % project
        status, body = request(port, "GET", path + ("&pageToken=" + token if token else ""))
        if status != 200:
            raise RuntimeError("jobs.list: %d %s" % (status, body))
        jobs += body.get("jobs", [])
        token = body.get("nextPageToken", "")
        if not token:
            return jobs


def marks_of(marks_dir, job_id):
    """{"start": n, "end": n, "concurrent": n} from the job's marks file in `marks_dir`."""
    counts = {"start": 0, "end": 0, "concurrent": 0}
    try:
        with open(os.path.join(marks_dir, job_id), encoding="utf-8") as f:
            for line in f:
                counts[line.split()[0]] += 1
    except FileNotFoundError:
        pass
    return counts



class Server:
    """One `trainyard serve` process on a fixed port; its output appended to `log_path`."""

    def __init__(self, data, port, log_path, extra_args=()):
        self.args = [TRAINYARD, "serve", "--listen", "127.0.0.1:%d" % port, "--data-dir", data,
                     "--containers", "host", "--stop-grace", "2", *extra_args]
        self.port = port
        self.log_path = log_path
        self.proc = None
        self.exits = []  # how each run ended when the test killed it (-9: by the SIGKILL)

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
        """SIGKILLs it; records how it ended: "exited by itself (rc)" when it was gone before."""
        early = self.proc.poll()
        if early is None:
            self.proc.send_signal(signal.SIGKILL)
        rc = self.proc.wait()
        self.exits.append(rc if early is None else "exited by itself (%s)" % early)

    def stop(self, timeout=30):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode if self.proc else None

    def log(self, whole=False):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        return text if whole else text[-4000:]


class Clients:
    """`count` threads creating jobs until stopped; each outcome recorded per job id."""

    def __init__(self, port, marks_dir, count=CLIENTS):
        self.port = port
        self.marks = marks_dir
        self.packages = []  # [(sdist path, package name)] of the current round
        self.staging = set()  # ids of the jobs sent with a package
        self.acknowledged = set()
        self.unanswered = set()  # the connection died: the job may or may not exist
        self.refused = {}  # an answer other than 200: id -> (status, body)
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True)
                        for i in range(count)]

    def job(self, job_id, rng):
        marks = os.path.join(self.marks, job_id)
        seconds = "%.2f" % rng.uniform(0.2, 1.0)
        packages = self.packages
        if packages and rng.random() < STAGING:
            sdist, name = rng.choice(packages)
            with self.lock:
                self.staging.add(job_id)
            return {"jobId": job_id, "trainingInput": {
                "region": "us-central1", "runtimeVersion": "2.11", "pythonVersion": "3.7",
                "packageUris": [sdist], "pythonModule": name + ".task",
                "args": [marks, seconds]}}
        command = ["/bin/sh", "-c", TRAINER, "trainer", marks, seconds]
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

