#!/usr/bin/python3
"""The real gcloud (Cloud SDK 528) following a real job's logs through a real `trainyard serve`.

A distributed job (a master and two workers, docs/reference/ai-platform-training.md §10) runs a
trainer written by the test (standard library only): every replica prints numbered lines,
alternately on stdout and stderr, flushing each. `gcloud ai-platform jobs stream-logs` (logging v2
`entries:list`, docs/reference/ai-platform-training.md §10.1) must print every line with its task
name, in order per task and stream (stdout INFO, stderr ERROR) and return when the job ends;
`--task-name` keeps one task; `submit training --stream-logs` prints the rows on stderr, returns,
and exits 1 when the job failed. `trainyard jobs stream-logs` and `trainyard jobs submit training
--stream-logs` must print the same rows.

Usage: gcloud_logs_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

GCLOUD = gcloud_env.GCLOUD
TRAINYARD = None  # set by main()
PROJECT = "p"
BUCKET = "e2e-logs"
RUNTIME = ["--region", "us-central1", "--runtime-version", "2.11", "--python-version", "3.7"]
LINES = 12  # per replica
TASKS = ("master-replica-0", "worker-replica-0", "worker-replica-1")
COMMAND_TIMEOUT_S = 300  # gcloud checks the job's end only every 10 s; a shared 2-core machine
# A CUSTOM job of CPU replicas: a master and two workers.
CLUSTER_CONFIG = """trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-4
  workerCount: 2
  workerType: n1-standard-4
"""
SETUP_PY = """from setuptools import setup

setup(name="logtrainer", version="0.1", packages=["logtrainer"])
"""
# The trainer: each replica prints LINES numbered lines, even ones on stdout and odd ones on
# stderr, 0.1 s apart, then drops a file in <job dir>/done/. The master first waits for the
# workers' files, so the job (which ends with its master) never ends before a worker's last line;
# with --fail, the master then exits with status 3.
TRAINER_PY = '''"""Numbered lines on stdout and stderr from every replica (tests/e2e/gcloud_logs_test.py)."""

import argparse
import json
import os
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True)
    parser.add_argument("--lines", type=int, required=True)
    parser.add_argument("--fail", action="store_true")
    args = parser.parse_args()
    tf_config = json.loads(os.environ["TF_CONFIG"])
    task = tf_config["task"]
    role = "master" if task["type"] in ("master", "chief") else task["type"]
    name = "%s-replica-%d" % (role, task["index"])
    done = os.path.join(args.job_dir, "done")
    os.makedirs(done, exist_ok=True)
    if role == "master":
        workers = len(tf_config["cluster"].get("worker", []))
        deadline = time.monotonic() + 120
        while len(os.listdir(done)) < workers and time.monotonic() < deadline:
            time.sleep(0.05)
    for i in range(args.lines):
        stream = "stdout" if i % 2 == 0 else "stderr"
        print("%s says line %02d on %s" % (name, i, stream),
              file=sys.stdout if stream == "stdout" else sys.stderr, flush=True)
        time.sleep(0.1)
    open(os.path.join(done, name), "w").close()
    if args.fail and role == "master":
        sys.exit(3)


if __name__ == "__main__":
    main()
'''
# One row of gcloud's log format (docs/reference/ai-platform-training.md §10.3): severity, local
# time, task, trial, message.
ROW = re.compile(r"^([A-Z]+)\t(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4})\t([^\t]*)\t([^\t]*)\t(.*)$")
LINE = re.compile(r"^(\S+) says line (\d\d) on (stdout|stderr)$")
# What `submit training --stream-logs` prints at the end, for (job id, state).
SUBMITTED = (r"^endTime: '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d'\njobId: %s\n"
             r"startTime: '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d'\nstate: %s\n$")


def expected_lines(task):
    return ["%s says line %02d on %s" % (task, i, "stdout" if i % 2 == 0 else "stderr")
            for i in range(LINES)]


class GcloudLogsTest(gcloud_env.ServerTestCase):
    maxDiff = None
    _followed = None  # the job every `stream-logs` test reads, and gcloud's live output of it

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-logs-")
        cls.package = os.path.join(cls.tmp, "pkg", "logtrainer")
        os.makedirs(cls.package)
        for path, text in (("../setup.py", SETUP_PY), ("__init__.py", ""),
                           ("lines.py", TRAINER_PY)):
            with open(os.path.join(cls.package, path), "w", encoding="utf-8") as f:
                f.write(text)
        cls.config = os.path.join(cls.tmp, "cluster.yaml")
        with open(cls.config, "w", encoding="utf-8") as f:
            f.write(CLUSTER_CONFIG)
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, os.path.join(cls.tmp, "data"))
        cls.env = gcloud_env.gcloud_environment(os.path.join(cls.tmp, "gcloud"), PROJECT,
                                                cls.server.url, logging_url=cls.server.url)
        cls.env["TZ"] = "UTC"  # gcloud and trainyard print local times: the same zone for both
        # `submit --stream-logs` polls every ml_engine/polling_interval seconds (default 60).
        cls.env["CLOUDSDK_ML_ENGINE_POLLING_INTERVAL"] = "1"
        made = cls.gcloud("storage", "buckets", "create", "gs://" + BUCKET)
        if made.rc != 0:
            cls.tearDownClass()
            raise AssertionError("cannot create gs://%s: %r" % (BUCKET, made))

    # -- helpers ----------------------------------------------------------------------------

    @classmethod
    def run_command(cls, argv):
        proc = subprocess.run(argv, env=cls.env, cwd=cls.tmp, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S)
        return gcloud_env.Run(proc)

    @classmethod
    def gcloud(cls, *args):
        return cls.run_command([GCLOUD, *args])

    @classmethod
    def trainyard(cls, *args):
        """`trainyard ARGS` against the server, its flags before the user args (after `--`)."""
        args = list(args)
        end = args.index("--") if "--" in args else len(args)
        args[end:end] = ["--server", cls.server.url, "--project", PROJECT]
        return cls.run_command([TRAINYARD, *args])

    @classmethod
    def submit_args(cls, job_id, *flags, fail=False):
        """`submit training job_id` of the logging job with `flags`; its job dir is its own."""
        return ["submit", "training", job_id, "--config", cls.config,
                "--package-path", cls.package, "--module-name", "logtrainer.lines",
                "--staging-bucket", "gs://" + BUCKET, *RUNTIME,
                "--job-dir", "gs://%s/%s" % (BUCKET, job_id), *flags,
                "--", "--lines", str(LINES), *(["--fail"] if fail else [])]

    def submit(self, job_id, *flags):
        run = self.gcloud("ai-platform", "jobs", *self.submit_args(job_id, *flags))
        self.assertEqual(run.rc, 0, run)
        self.assertIn("Job [%s] submitted successfully." % job_id, run.err)
        return run

    def followed(self):
        """The job `e2e_logs` (submitted the first time) and gcloud's `stream-logs` of it, started
        while it runs: (job id, Run)."""
        cls = type(self)
        if cls._followed is None:
            self.submit("e2e_logs")
            run = self.gcloud("ai-platform", "jobs", "stream-logs", "e2e_logs",
                              "--polling-interval=1")
            cls._followed = ("e2e_logs", run)
        return cls._followed

    def rows(self, text, run):
        """The rows of gcloud's log format in `text` (any other line fails the test)."""
        rows = []
        for line in text.splitlines():
            match = ROW.match(line)
            self.assertIsNotNone(match, "not a log row: %r\n%r" % (line, run))
            rows.append(match.groups())
        return rows

    def stderr_rows(self, run):
        """The rows among the lines of `run.err` (the others have no tab)."""
        return self.rows("\n".join(line for line in run.err.splitlines() if "\t" in line), run)

    def assert_lines(self, rows, tasks, run):
        """`rows` hold every trainer line of each of `tasks` and no other trainer line: in order
        per task, under its task name, stdout as INFO and stderr as ERROR, with no trial id."""
        seen = {}
        for severity, _, task, trial, message in rows:
            self.assertIn(task, TASKS + ("service",), run)
            match = LINE.match(message)
            if task == "service" or not match:  # the service's own messages (which may quote
                continue                        # a replica's last lines)
            self.assertEqual(task, match.group(1), run)
            self.assertEqual(severity, "INFO" if match.group(3) == "stdout" else "ERROR", run)
            self.assertEqual(trial, "", run)
            seen.setdefault(task, []).append(message)
        self.assertEqual(sorted(seen), sorted(tasks), run)
        # stdout and stderr are two pipes: each keeps its order, but two lines written on both
        # back to back may be read in either order by a busy supervisor.
        for task in tasks:
            for stream in ("stdout", "stderr"):
                self.assertEqual([m for m in seen[task] if m.endswith(stream)],
                                 [m for m in expected_lines(task) if m.endswith(stream)], run)

    def describe_state(self, job_id):
        run = self.gcloud("ai-platform", "jobs", "describe", job_id, "--format", "value(state)")
        self.assertEqual(run.rc, 0, run)
        return run.out.strip()

    # -- gcloud -----------------------------------------------------------------------------

    def test_stream_logs_prints_every_line_of_every_replica_and_returns_at_the_end(self):
        job_id, run = self.followed()
        self.assertEqual(run.rc, 0, run)
        self.assert_lines(self.rows(run.out, run), TASKS, run)
        # It returned because the job has ended (its endTime is set).
        self.assertEqual(self.describe_state(job_id), "SUCCEEDED")

    def test_stream_logs_with_a_task_name_prints_only_that_task(self):
        job_id, _ = self.followed()
        run = self.gcloud("ai-platform", "jobs", "stream-logs", job_id, "--polling-interval=1",
                          "--task-name", "worker-replica-1")
        self.assertEqual(run.rc, 0, run)
        rows = self.rows(run.out, run)
        self.assertEqual({row[2] for row in rows}, {"worker-replica-1"}, run)
        self.assert_lines(rows, ("worker-replica-1",), run)

    def test_submit_with_stream_logs_prints_rows_on_stderr_and_returns(self):
        run = self.submit("e2e_logs_submit", "--stream-logs")
        # `yaml(jobId,state,startTime.date(tz=LOCAL),endTime.date(tz=LOCAL))`, keys sorted.
        self.assertRegex(run.out, SUBMITTED % ("e2e_logs_submit", "SUCCEEDED"))
        self.assert_lines(self.stderr_rows(run), TASKS, run)

    def test_submit_with_stream_logs_exits_one_when_the_job_fails(self):
        run = self.gcloud("ai-platform", "jobs",
                          *self.submit_args("e2e_logs_fail", "--stream-logs", fail=True))
        self.assertEqual(run.rc, 1, run)
        self.assertRegex(run.out, SUBMITTED % ("e2e_logs_fail", "FAILED"))
        self.assert_lines(self.stderr_rows(run), TASKS, run)

    def test_stream_logs_of_an_unknown_job_fails(self):
        run = self.gcloud("ai-platform", "jobs", "stream-logs", "no_such_job",
                          "--polling-interval=1")
        self.assertEqual(run.rc, 1, run)
        self.assertIn("NOT_FOUND", run.error_line(), run)

    # -- trainyard --------------------------------------------------------------------------

    def test_trainyard_stream_logs_prints_what_gcloud_printed(self):
        job_id, followed = self.followed()
        self.assertEqual(followed.rc, 0, followed)
        run = self.trainyard("jobs", "stream-logs", job_id)
        self.assertEqual(run.rc, 0, run)
        self.assertEqual(run.err, "")
        self.assertEqual(run.out, followed.out)

        one = self.trainyard("jobs", "stream-logs", job_id, "--task-name", "worker-replica-1")
        self.assertEqual(one.rc, 0, one)
        rows = self.rows(one.out, one)
        self.assertEqual({row[2] for row in rows}, {"worker-replica-1"}, one)
        self.assert_lines(rows, ("worker-replica-1",), one)

    def test_trainyard_submit_with_stream_logs_prints_rows_on_stderr_and_returns(self):
        job_id = "e2e_logs_trainyard"
        run = self.trainyard("jobs", *self.submit_args(job_id, "--stream-logs"))
        self.assertEqual(run.rc, 0, run)
        self.assertRegex(run.out, SUBMITTED % (job_id, "SUCCEEDED"))
        self.assertIn("Job [%s] submitted successfully." % job_id, run.err)
        self.assert_lines(self.stderr_rows(run), TASKS, run)

    def test_trainyard_stream_logs_of_an_unknown_job_fails(self):
        run = self.trainyard("jobs", "stream-logs", "no_such_job")
        self.assertEqual(run.rc, 1, run)
        self.assertEqual(run.error_line(),
                         "NOT_FOUND: Field: name Error: The specified job was not found.", run)


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
