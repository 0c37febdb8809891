#!/usr/bin/python3
"""The ps_async example (examples/ps_async) run for real through `trainyard serve`.

The example's package is submitted with `trainyard jobs submit training --package-path` and its
own config.yaml (a master, two workers, two parameter servers, one evaluator). The job must end
SUCCEEDED with a held-out digits accuracy of at least 0.9 in metrics.json; every worker must
have pushed gradients to every parameter server (the servers' counts, in metrics.json); the
evaluator must have logged one evaluation per checkpoint, the final one included (logging v2
`entries:list` and `trainyard jobs stream-logs --task-name evaluator-replica-0`); and no process
of the job may be left once it has ended.

Usage: examples_ps_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

TRAINYARD = None  # set by main()
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                       "ps_async")
PROJECT = "p"
BUCKET = "e2e-ps-async"
JOB = "e2e_ps_async"
EVALUATOR = "evaluator-replica-0"
TASKS = ("master-replica-0", "worker-replica-0", "worker-replica-1", "ps-replica-0",
         "ps-replica-1", EVALUATOR)
JOB_TIMEOUT_S = 300  # far above the ~20 s it takes, for a loaded 2-core machine
COMMAND_TIMEOUT_S = 120
# The evaluator's line for each checkpoint (ps_async/evaluator.py).
EVALUATION = re.compile(r"^evaluator-0: checkpoint (ckpt-\d{9}\.npz) \(global step (\d+)\): "
                        r"accuracy ([0-9.]+) on \d+ held-out examples$")


class ExamplesPsTest(gcloud_env.ServerTestCase):
    """One run of the example, shared by every test (each checks one outcome of it)."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-ps-")
        # A copy: the sdist build must not leave anything in the source tree.
        cls.example = os.path.join(cls.tmp, "ps_async")
        shutil.copytree(EXAMPLE, cls.example, ignore=shutil.ignore_patterns(
            "__pycache__", "*.egg-info", "build", "dist"))
        cls.data = os.path.join(cls.tmp, "data")
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, cls.data)
        try:
            cls.api("storage/v1/b?project=" + PROJECT, {"name": BUCKET})
            cls.submitted = cls.trainyard(
                "jobs", "submit", "training", JOB, "--config",
                os.path.join(cls.example, "config.yaml"), "--region", "us-central1",
                "--package-path", os.path.join(cls.example, "ps_async"),
                "--module-name", "ps_async.task", "--staging-bucket", "gs://" + BUCKET,
                "--job-dir", "gs://%s/%s" % (BUCKET, JOB))
            cls.job = cls.wait_for_end(JOB) if cls.submitted.rc == 0 else {}
        except Exception:
            cls.tearDownClass()
            raise

    # -- helpers ----------------------------------------------------------------------------

    @classmethod
    def api(cls, path, body=None):
        """The JSON reply of GET (or POST `body` to) the server's `path`."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(cls.server.url + path, data=data,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.load(reply)

    @classmethod
    def trainyard(cls, *args):
        """`trainyard ARGS --server URL --project PROJECT`, finished."""
        proc = subprocess.run([TRAINYARD, *args, "--server", cls.server.url, "--project",
                               PROJECT], cwd=cls.tmp, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S)
        return gcloud_env.Run(proc)

    @classmethod
    def wait_for_end(cls, job_id):
        """The job resource once its state is terminal (or after JOB_TIMEOUT_S)."""
        deadline = time.monotonic() + JOB_TIMEOUT_S
        while True:
            job = cls.api("v1/projects/%s/jobs/%s" % (PROJECT, job_id))
            if job.get("state") in ("SUCCEEDED", "FAILED", "CANCELLED") or \
                    time.monotonic() > deadline:
                return job
            time.sleep(0.5)

    def job_dir(self, *parts):
        """A path under the job dir gs://BUCKET/JOB as the trainer saw it."""
        return os.path.join(self.data, "buckets", BUCKET, JOB, *parts)

    def metrics(self):
        self.assert_succeeded()
        with open(self.job_dir("metrics.json"), encoding="utf-8") as f:
            return json.load(f)

    def assert_succeeded(self):
        self.assertEqual(self.submitted.rc, 0, self.submitted)
        self.assertEqual(self.job.get("state"), "SUCCEEDED",
                         "%s\n--- master log\n%s" % (json.dumps(self.job, indent=1),
                                                      self.task_log("master-replica-0")))

    def task_log(self, task):
        path = os.path.join(self.data, "jobs", PROJECT, JOB, "logs", task + ".log")
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return "(no log)"

    def evaluator_messages(self):
        """The evaluator's lines, from logging v2 entries:list (every page)."""
        messages, token = [], None
        while True:
            body = {"resourceNames": ["projects/" + PROJECT], "orderBy": "timestamp asc",
                    "pageSize": 1000,
                    "filter": 'resource.labels.job_id="%s" AND resource.labels.task_name="%s"'
                              % (JOB, EVALUATOR)}
            if token:
                body["pageToken"] = token
            page = self.api("v2/entries:list", body)
            for entry in page.get("entries", []):
                self.assertEqual(entry["resource"]["labels"]["task_name"], EVALUATOR)
                messages.append(entry.get("textPayload")
                                or entry.get("jsonPayload", {}).get("message", ""))
            token = page.get("nextPageToken")
            if not token:
                return messages

    def evaluations(self, messages):
        """{checkpoint file: (global step, accuracy)} of the evaluation lines in `messages`."""
        found = {}
        for message in messages:
            match = EVALUATION.match(message.strip())
            if match:
                self.assertNotIn(match.group(1), found, "evaluated twice:\n%s" % messages)
                found[match.group(1)] = (int(match.group(2)), float(match.group(3)))
        return found

    # -- tests ------------------------------------------------------------------------------

    def test_job_succeeds_with_every_replica_started(self):
        self.assert_succeeded()
        logs = os.listdir(os.path.join(self.data, "jobs", PROJECT, JOB, "logs"))
        self.assertEqual(sorted(t for t in TASKS if t + ".log" in logs), sorted(TASKS), logs)

    def test_model_reaches_ninety_percent_on_held_out_digits(self):
        metrics = self.metrics()
        self.assertGreaterEqual(metrics["test_accuracy"], 0.9, metrics)
        self.assertGreaterEqual(metrics["global_step"], metrics["train_steps"], metrics)
        self.assertTrue(os.path.isfile(self.job_dir("model.npz")))

    def test_every_worker_pushed_to_every_parameter_server(self):
        metrics = self.metrics()
        self.assertEqual(len(metrics["ps"]), 2, metrics)
        for server in metrics["ps"]:
            self.assertEqual(sorted(server["pushes"]), ["worker-0", "worker-1"], server)
            for worker, count in server["pushes"].items():
                self.assertGreater(count, 0, (worker, server))
            # Both workers stopped when told to (their BYE), before the master ended.
            self.assertEqual(server["stopped_workers"], ["worker-0", "worker-1"], server)
        # Server 0's version is the global step: the pushes it applied, from both workers.
        self.assertEqual(sum(metrics["ps"][0]["pushes"].values()), metrics["global_step"])

    def test_evaluator_logged_every_checkpoint_once_and_the_final_one(self):
        self.assert_succeeded()
        messages = self.evaluator_messages()
        found = self.evaluations(messages)
        saved = sorted(n for n in os.listdir(self.job_dir("checkpoints")) if n.endswith(".npz"))
        self.assertGreaterEqual(len(saved), 2, saved)
        self.assertEqual(sorted(found), saved, "\n".join(messages))
        with open(self.job_dir("checkpoints", "final.json"), encoding="utf-8") as f:
            final = json.load(f)
        metrics = self.metrics()
        step, accuracy = found[final["checkpoint"]]
        self.assertEqual(step, metrics["global_step"])
        # The evaluator saw the same weights and held-out set as the master's metrics.
        self.assertAlmostEqual(accuracy, metrics["test_accuracy"], places=4)
        self.assertEqual(metrics["evaluations"]["evaluator-0"]["final"]["global_step"], step)

    def test_stream_logs_of_the_evaluator_prints_its_evaluations(self):
        self.assert_succeeded()
        run = self.trainyard("jobs", "stream-logs", JOB, "--task-name", EVALUATOR)
        self.assertEqual(run.rc, 0, run)
        rows = [line.split("\t") for line in run.out.splitlines()]
        self.assertTrue(rows, run)
        self.assertEqual({row[2] for row in rows}, {EVALUATOR}, run)
        self.assertEqual(self.evaluations(row[-1] for row in rows),
                         self.evaluations(self.evaluator_messages()))

    def test_no_process_of_the_job_is_left(self):
        self.assert_succeeded()
        with open(os.path.join(self.data, "jobs", PROJECT, JOB, "run", "replicas.json"),
                  encoding="utf-8") as f:
            record = json.load(f)
        supervisors = [r["pid"] for r in record["replicas"]]
        self.assertEqual(len(supervisors), len(TASKS), record)
        for pid in supervisors:
            self.assertFalse(_is_supervisor(pid), "supervisor %d still runs" % pid)
        self.assertEqual(_processes_of_job(JOB), [])


def _is_supervisor(pid):
    """Whether process `pid` exists and is a trainyard-replica supervisor."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return b"trainyard-replica" in f.read()
    except (FileNotFoundError, ProcessLookupError):
        return False


def _processes_of_job(job_id):
    """Pids of the processes whose environment says CLOUD_ML_JOB_ID=job_id."""
    marker = ("CLOUD_ML_JOB_ID=%s" % job_id).encode("utf-8")
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as f:
                if marker in f.read().split(b"\0"):
                    found.append(int(name))
        except OSError:  # gone, or not ours to read
            continue
    return found


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
