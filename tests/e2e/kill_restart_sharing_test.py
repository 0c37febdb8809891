#!/usr/bin/python3
"""`trainyard serve` SIGKILLed while issue #34's sharing is in play: a quota and weights set, a job
preempted back to the queue and one suspended, while clients submit jobs (kill_restart_test.py's
stream, fewer clients).

One emulated T4 (`--accelerator-emulation 1`, `--containers host`). An admin sets project kill's
quota (1 × T4, weight 3), project other's weight (2) and a priority class with the `trainyard`
CLI. Three jobs run examples/trainers/checkpointing as a container command, their job dirs in the
temp dir: `victim` (priority 0, 1 × T4) is held at its second checkpoint; `held` (no GPU) is held
at its first and suspended with `trainyard jobs suspend`, so it is QUEUED and suspended; `urgent`
(priority 500, 1 × T4) preempts the victim, which goes back to QUEUED, and is held at its third
step. Then the server is SIGKILLed and started again on the same data dir and port. Afterwards:

  * the sharing policy (GET /trainyard/v1/sharing) is as set, and still applied: a job of 2 × T4
    is refused with RESOURCE_EXHAUSTED naming the quota, and the victim's wait reason is its
    project's T4 quota;
  * the urgent job's trainer was adopted, not started again; released, it SUCCEEDS;
  * the victim runs again from its checkpoint and SUCCEEDS, having lost nothing past it;
  * the suspended job stays QUEUED and suspended, not started, after every other job ended;
    resumed (`trainyard jobs resume`), it goes on from its checkpoint and SUCCEEDS;
  * as kill_restart_test.py counts them: no acknowledged job lost, no job id twice, no trainer run
    to its end twice or two runs of one job at once (a stopped start's SIGTERM came before the
    next start), every job SUCCEEDED; no process of the run left; the server stops cleanly.

Usage: kill_restart_sharing_test.py --trainyard PATH [unittest args]. Ends with "N passed, M
failed".
"""

import ctypes
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)
import kill_restart_harness as kr  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TASK = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "trainers",
                    "checkpointing", "trainer", "task.py")
PROJECT = kr.PROJECT
CLIENTS = 2  # the stream of short jobs while the sharing scenario plays
EVERY = 5  # the scenario trainers' checkpoint interval, in steps
WAIT_S = 300  # per wait, on a loaded 2-core machine
QUOTA = ["--accelerator", "NVIDIA_TESLA_T4=1", "--weight", "3"]
POLICY = {"projects": [{"project": "kill", "accelerators": {"NVIDIA_TESLA_T4": 1}, "weight": 3},
                       {"project": "other", "accelerators": {}, "weight": 2}],
          "priorityClasses": {"urgent": 500}}


class KillRestartSharingTest(unittest.TestCase):
    """One run, one kill at the moment described above; each test checks one promise."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(kr.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-kill-sharing-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.marks = os.path.join(cls.tmp, "marks")
        cls.work = os.path.join(cls.tmp, "work")  # the scenario trainers' job dirs
        os.makedirs(cls.marks)
        os.makedirs(cls.work)
        cls.port = kr.free_port()
        cls.url = "http://127.0.0.1:%d/" % cls.port
        cls.server = kr.Server(cls.data, cls.port, os.path.join(cls.tmp, "serve.log"),
                               ["--accelerator-emulation", "1"])
        cls.acknowledged = set()  # the scenario's jobs whose create was answered 200
        try:
            cls.server.start()
            with kr.Clients(cls.port, cls.marks, count=CLIENTS) as cls.clients:
                cls.before_kill = cls.set_the_scene()
                cls.server.kill()
                kr.reap_orphans({cls.server.proc.pid})
                cls.server.start()
                cls.after_restart = cls.look_after_restart()
                taken = len(cls.clients.acknowledged) + 2 * CLIENTS
                cls.wait_for("the new server taking some of the stream's jobs too",
                             lambda: len(cls.clients.acknowledged) >= taken)
            cls.play_out()
            cls.stop_rc = cls.server.stop()
            kr.reap_orphans(set())
            cls.left = gcloud_env.marked_processes(cls.tmp)
        except Exception:
            cls.server.stop()
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # -- the run ----------------------------------------------------------------------------

    @classmethod
    def set_the_scene(cls):
        """Sharing set, victim preempted (QUEUED), held suspended (QUEUED), urgent RUNNING at
        its pause: what the kill interrupts. Returns the sharing policy as served then."""
        cls.cli("quota", "set", PROJECT, *QUOTA)
        cls.cli("quota", "set", "other", "--weight", "2")
        cls.cli("priority-class", "set", "urgent", "500")
        cls.submit("victim", 0, steps=4 * EVERY, pause_at=2 * EVERY, gpu=True)
        cls.wait_for("victim at its pause", lambda: cls.progress("victim") == 2 * EVERY)
        cls.submit("held", 0, steps=3 * EVERY, pause_at=EVERY, gpu=False)
        cls.wait_for("held at its pause", lambda: cls.progress("held") == EVERY)
        cls.cli("jobs", "suspend", "held", "--project", PROJECT)
        cls.wait_for("held suspended and queued", lambda: cls.state("held") == "QUEUED")
        cls.submit("urgent", 500, steps=2 * EVERY, pause_at=3, gpu=True)
        cls.wait_for("the victim preempted", lambda: cls.state("victim") == "QUEUED")
        cls.wait_for("urgent at its pause", lambda: cls.progress("urgent") == 3)
        return cls.call("GET", "/trainyard/v1/sharing")

    @classmethod
    def look_after_restart(cls):
        """What the restarted server shows before anything moves on."""
        too_big = cls.job_body("too_big", 0, steps=1, pause_at=0, gpu=True)
        too_big["trainingInput"]["masterConfig"]["acceleratorConfig"]["count"] = "2"
        return {
            "sharing": cls.call("GET", "/trainyard/v1/sharing"),
            "too_big": kr.request(cls.port, "POST", "/v1/projects/%s/jobs" % PROJECT, too_big),
            "states": {job: cls.state(job) for job in ("victim", "held", "urgent")},
            "held": cls.call("GET", "/trainyard/v1/projects/%s/jobs/held/suspension" % PROJECT),
            "queue": cls.wait_for("the victim in the cluster's queue", cls.queue_once_victim),
            "urgent_starts": len(cls.lines("urgent", "starts.jsonl")),
        }

    @classmethod
    def queue_once_victim(cls):
        """{job id: wait reason} of the project's queue (trainyard v1's cluster view) once the
        victim is in it (or is no longer QUEUED: the test fails then), else None."""
        queue = {q["jobId"]: q["reason"] for q in cls.call(
            "GET", "/trainyard/v1/projects/%s/cluster" % PROJECT)["queue"]}
        return queue if "victim" in queue or cls.state("victim") != "QUEUED" else None

    @classmethod
    def play_out(cls):
        """Releases the urgent job and the victim; once every job but the suspended one ended,
        notes how `held` stands, then resumes it and waits for it to end."""
        cls.release("victim")
        cls.release("urgent")
        cls.wait_for("every job but held ended", lambda: all(
            j["state"] in kr.TERMINAL for j in kr.list_jobs(cls.port) if j["jobId"] != "held"))
        cls.held_meanwhile = {
            "state": cls.state("held"), "starts": len(cls.lines("held", "starts.jsonl")),
            "suspended": cls.call("GET", "/trainyard/v1/projects/%s/jobs/held/suspension"
                                  % PROJECT)["suspended"]}
        cls.release("held")
        cls.cli("jobs", "resume", "held", "--project", PROJECT)
        cls.wait_for("held ended", lambda: cls.state("held") in kr.TERMINAL)
        cls.jobs = kr.list_jobs(cls.port)

    # -- helpers ----------------------------------------------------------------------------

    @classmethod
    def cli(cls, *args):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        run = gcloud_env.Run(subprocess.run([kr.TRAINYARD, *args, "--server", cls.url], env=env,
                                            capture_output=True, text=True, timeout=60))
        if run.rc != 0:
            raise AssertionError("trainyard %s: %r" % (" ".join(args), run))
        return run

    @classmethod
    def call(cls, method, path):
        status, body = kr.request(cls.port, method, path)
        if status != 200:
            raise AssertionError("%s %s: %d %s" % (method, path, status, body))
        return body

    @classmethod
    def job_body(cls, job_id, priority, steps, pause_at, gpu):
        """An ml v1 job running the checkpointing trainer as its container command."""
        command = ["/usr/bin/python3", TASK, "--job-dir", os.path.join(cls.work, job_id),
                   "--steps", str(steps), "--step-seconds", "0.05", "--checkpoint-every",
                   str(EVERY), "--no-checkpoint-on-sigterm", "--pause-at", str(pause_at)]
        master = {"imageUri": "kill/local", "containerCommand": command}
        if gpu:
            master["acceleratorConfig"] = {"count": "1", "type": "NVIDIA_TESLA_T4"}
        return {"jobId": job_id, "trainingInput": {
            "region": "us-central1", "scaleTier": "CUSTOM", "masterType": "n1-standard-4",
            "masterConfig": master, "scheduling": {"priority": priority}}}

    @classmethod
    def submit(cls, job_id, priority, **kwargs):
        status, body = kr.request(cls.port, "POST", "/v1/projects/%s/jobs" % PROJECT,
                                  cls.job_body(job_id, priority, **kwargs))
        if status != 200:
            raise AssertionError("create %s: %d %s" % (job_id, status, body))
        cls.acknowledged.add(job_id)

    @classmethod
    def state(cls, job_id):
        return cls.call("GET", "/v1/projects/%s/jobs/%s" % (PROJECT, job_id))["state"]

    @classmethod
    def wait_for(cls, what, condition):
        def checked():
            kr.reap_orphans({cls.server.proc.pid})
            return condition()
        return gcloud_env.wait_until(what, checked, WAIT_S, cls.server.log)

    @classmethod
    def release(cls, job_id):
        with open(os.path.join(cls.work, job_id, "release"), "w", encoding="utf-8"):
            pass

    @classmethod
    def progress(cls, job_id):
        try:
            with open(os.path.join(cls.work, job_id, "progress.json"), encoding="utf-8") as f:
                return json.load(f)["step"]
        except (OSError, ValueError):
            return 0

    @classmethod
    def lines(cls, job_id, name):
        try:
            with open(os.path.join(cls.work, job_id, name), encoding="utf-8") as f:
                return [json.loads(line) for line in f if line.strip()]
        except OSError:
            return []

    def assert_stopped_before_each_restart(self, job_id, starts):
        """`starts` starts, each but the last ended by a SIGTERM before the next began."""
        begun = [s["time"] for s in self.lines(job_id, "starts.jsonl")]
        stopped = [s["time"] for s in self.lines(job_id, "stops.jsonl")]
        self.assertEqual(len(begun), starts, job_id)
        self.assertEqual(len(stopped), starts - 1, job_id)
        for i, stop in enumerate(stopped):
            self.assertLess(begun[i], stop, job_id)
            self.assertLess(stop, begun[i + 1], job_id)

    # -- the promises -----------------------------------------------------------------------

    def test_the_sharing_policy_survives_and_is_applied(self):
        self.assertEqual(self.before_kill, POLICY)
        self.assertEqual(self.after_restart["sharing"], POLICY)
        status, body = self.after_restart["too_big"]
        self.assertEqual(status, 429, body)
        self.assertEqual(body["error"]["status"], "RESOURCE_EXHAUSTED", body)
        self.assertIn("The job needs 2 NVIDIA_TESLA_T4 at once and project kill's quota is 1",
                      body["error"]["message"], body)
        self.assertEqual(self.after_restart["queue"],
                         {"victim": "Project kill uses 1 of its 1 × NVIDIA_TESLA_T4 (quota), and "
                                    "no idle devices are left to borrow."})

    def test_the_preempted_job_resumes_from_its_checkpoint(self):
        self.assertEqual(self.after_restart["states"]["victim"], "QUEUED")
        self.assertEqual(self.after_restart["states"]["urgent"], "RUNNING")
        self.assertEqual(self.after_restart["urgent_starts"], 1)  # adopted, not started again
        self.assert_stopped_before_each_restart("urgent", 1)
        self.assert_stopped_before_each_restart("victim", 2)
        second = self.lines("victim", "starts.jsonl")[1]
        self.assertEqual((second["resumed_from"], second["reached_before"]),
                         (2 * EVERY, 2 * EVERY))
        urgent_start = self.lines("urgent", "starts.jsonl")[0]["time"]
        self.assertLess(self.lines("victim", "stops.jsonl")[0]["time"], urgent_start)
        self.assertLess(urgent_start, second["time"])

    def test_the_suspended_job_stays_suspended_until_resumed(self):
        self.assertEqual(self.after_restart["states"]["held"], "QUEUED")
        self.assertEqual(self.after_restart["held"],
                         {"jobId": "held", "state": "QUEUED", "suspended": True})
        self.assertNotIn("held", self.after_restart["queue"])
        self.assertEqual(self.held_meanwhile, {"state": "QUEUED", "starts": 1, "suspended": True})
        self.assert_stopped_before_each_restart("held", 2)
        self.assertEqual(self.lines("held", "starts.jsonl")[1]["resumed_from"], EVERY)

    def test_nothing_lost_duplicated_or_run_twice(self):
        ids = [j["jobId"] for j in self.jobs]
        acked = self.clients.acknowledged | self.acknowledged
        self.assertGreater(len(self.clients.acknowledged), 0)
        self.assertEqual(sorted(acked - set(ids)), [])  # lost
        self.assertEqual(sorted({i for i in ids if ids.count(i) > 1}), [])  # duplicated
        self.assertEqual(sorted(set(ids) - acked - self.clients.unanswered), [])
        stream = [i for i in ids if i not in self.acknowledged]
        marks = {i: kr.marks_of(self.marks, i) for i in stream}
        self.assertEqual(sorted(i for i, m in marks.items()
                                if m["end"] != 1 or m["concurrent"] > 0), [])  # run twice
        ran = {name for name in os.listdir(self.marks) if not name.endswith(".lock")}
        self.assertEqual(sorted(ran - set(ids)), [])  # ran without a job
        for job_id in self.acknowledged:
            with open(os.path.join(self.work, job_id, "done.json"), encoding="utf-8") as f:
                self.assertEqual(json.load(f)["steps"], self.progress(job_id), job_id)
        self.assertEqual({j["jobId"]: j["state"] for j in self.jobs if j["state"] != "SUCCEEDED"},
                         {}, self.server.log())

    def test_no_process_left_and_the_server_stops_cleanly(self):
        self.assertEqual(self.left, [])
        self.assertEqual(self.stop_rc, 0, self.server.log())
        self.assertEqual(self.server.exits, [-9])
        self.assertEqual([s for s in kr.CRASH_SIGNS if s in self.server.log(whole=True)], [])
        db = sqlite3.connect(os.path.join(self.data, "trainyard.db"))
        try:
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
        finally:
            db.close()


if __name__ == "__main__":
    gcloud_env.main(__doc__, lambda path: setattr(kr, "TRAINYARD", path))
