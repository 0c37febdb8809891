#!/usr/bin/python3
"""The real gcloud (Cloud SDK 528) `ai-platform jobs` commands against a real `trainyard serve`.

Starts `trainyard serve` on a free loopback port with a temporary data directory, points a
private gcloud configuration at it (docs/reference/ai-platform-training.md §1.1, §15), and drives
submit, describe, list (across pages), cancel, update and the refusals through gcloud, checking what
gcloud prints and its exit code (docs/reference/ai-platform-training.md §1.4, §1.5). Bulk jobs are
created through the HTTP API directly. Stops the server with SIGTERM at the end and checks that it
exited cleanly.

Usage: gcloud_jobs_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import block_yaml  # noqa: E402  (needs the path above)
import gcloud_env  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(REPO, "examples", "configs")
GCLOUD = gcloud_env.GCLOUD
TRAINYARD = None  # set by main()
PROJECT = "p"
PACKAGE = "gs://bkt1/trainer-0.1.tar.gz"
# gcloud adds the second sentence to a 401, 403 or 404 without credentials
# (docs/reference/ai-platform-training.md §1.1).
NOT_FOUND = ("NOT_FOUND: Field: name Error: The specified job was not found. This command is "
             "unauthenticated because the [auth/disable_credentials] property is True.")
# The expected trainingInput of a job submitted from seed_gpu.yaml with the flags of
# submit_args(); int64 fields travel as strings (docs/reference/ai-platform-training.md §1.3).
SEED_GPU_INPUT = {
    "scaleTier": "CUSTOM",
    "masterType": "n1-highcpu-16",
    "masterConfig": {"acceleratorConfig": {"count": "4", "type": "NVIDIA_TESLA_T4"}},
    "workerCount": "9",
    "workerType": "n1-highcpu-16",
    "workerConfig": {"acceleratorConfig": {"count": "4", "type": "NVIDIA_TESLA_T4"}},
    "parameterServerCount": "3",
    "parameterServerType": "n1-highmem-8",
    "packageUris": [PACKAGE],
    "pythonModule": "trainer.task",
    "region": "us-central1",
    "runtimeVersion": "2.11",
    "pythonVersion": "3.7",
    "args": ["--epochs=2", "--data=gs://bkt1/data"],
    "enableWebAccess": False,  # gcloud GA always sends it
}


def submit_args(job_id, config):
    return [job_id, "--config", os.path.join(EXAMPLES, config), "--packages", PACKAGE,
            "--module-name", "trainer.task", "--region", "us-central1",
            "--runtime-version", "2.11", "--python-version", "3.7",
            "--", "--epochs=2", "--data=gs://bkt1/data"]


def minimal_job(job_id, labels=None):
    job = {"jobId": job_id,
           "trainingInput": {"scaleTier": "BASIC", "packageUris": [PACKAGE],
                             "pythonModule": "trainer.task", "region": "us-central1",
                             "runtimeVersion": "2.11", "pythonVersion": "3.7"}}
    if labels:
        job["labels"] = labels
    return job


class GcloudJobsTest(gcloud_env.ServerTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-jobs-")
        # The control plane only: jobs stay QUEUED, so every state the tests expect is stable.
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, os.path.join(cls.tmp, "data"),
                                             extra_args=["--hold-queue"])
        cls.env = gcloud_env.gcloud_environment(os.path.join(cls.tmp, "gcloud"), PROJECT,
                                                cls.server.url, logging_url=cls.server.url)

    # -- helpers ----------------------------------------------------------------------------

    def gcloud(self, *args, project=None):
        cmd = [GCLOUD, "ai-platform", "jobs", *args]
        if project:
            cmd += ["--project", project]
        proc = subprocess.run(cmd, env=self.env, cwd=self.tmp, capture_output=True, text=True,
                              timeout=120)
        return gcloud_env.Run(proc)

    def api(self, method, path, body=None):
        """One HTTP request to the server; returns (status, parsed JSON or text body)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server.url.rstrip("/") + path, data=data,
                                         method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        text = raw.decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def create(self, job, project=PROJECT):
        status, body = self.api("POST", "/v1/projects/%s/jobs" % project, job)
        self.assertEqual(status, 200, body)
        return body

    def describe_json(self, job_id, project=None):
        run = self.gcloud("describe", job_id, "--format", "json", project=project)
        self.assertEqual(run.rc, 0, run)
        return json.loads(run.out)

    def list_requests(self):
        """How many `jobs.list` requests the server has answered with 200 (from /metrics)."""
        status, text = self.api("GET", "/metrics")
        self.assertEqual(status, 200)
        match = re.search(r'^trainyard_http_requests_total\{route="jobs\.list",code="200"\} (\d+)$',
                          text, re.M)
        return int(match.group(1)) if match else 0

    # -- submit and describe ----------------------------------------------------------------

    def test_submit_from_config_file_then_describe(self):
        run = self.gcloud("submit", "training", *submit_args("e2e_seed_gpu", "seed_gpu.yaml"))
        self.assertEqual(run.rc, 0, run)
        self.assertIn("Job [e2e_seed_gpu] submitted successfully.", run.err)
        self.assertIn("gcloud ai-platform jobs describe e2e_seed_gpu", run.err)
        self.assertNotIn("ERROR", run.err)
        printed = block_yaml.loads(run.out)
        self.assertEqual(printed, {"jobId": "e2e_seed_gpu", "state": "QUEUED"})

        described = self.gcloud("describe", "e2e_seed_gpu")
        self.assertEqual(described.rc, 0, described)
        self.assertIn("https://console.cloud.google.com/mlengine/jobs/e2e_seed_gpu?project=p",
                      described.err)
        job = block_yaml.loads(described.out)
        self.assertEqual(job["jobId"], "e2e_seed_gpu")
        self.assertEqual(job["state"], "QUEUED")
        self.assertEqual(job["trainingInput"], SEED_GPU_INPUT)
        self.assertRegex(job["createTime"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
        self.assertRegex(job["etag"], r"^[A-Za-z0-9+/]+={0,2}$")
        self.assertNotIn("endTime", job)

        self.assertEqual(self.describe_json("e2e_seed_gpu"), job)

    def test_describe_of_a_missing_job_is_not_found(self):
        run = self.gcloud("describe", "e2e_no_such_job")
        self.assertEqual(run.rc, 1, run)
        self.assertEqual(run.out, "")
        self.assertEqual(run.error_line(), NOT_FOUND, run)

    # -- list -------------------------------------------------------------------------------

    def test_list_shows_every_job_once_newest_first_across_pages(self):
        project = "e2e-list"  # its own project: the other tests' jobs do not show up
        ids = ["bulk_%03d" % i for i in range(130)]
        for job_id in ids:  # one at a time, so their createTimes increase in this order
            self.create(minimal_job(job_id), project)
        before = self.list_requests()

        run = self.gcloud("list", project=project)
        self.assertEqual(run.rc, 0, run)
        lines = run.out.splitlines()
        self.assertEqual(lines[0].split(), ["JOB_ID", "STATUS", "CREATED"])
        rows = [line.split() for line in lines[1:]]
        self.assertEqual([row[0] for row in rows], ids[::-1])
        self.assertTrue(all(row[1] == "QUEUED" for row in rows), rows)
        # 130 jobs at gcloud's pageSize=100: two pages, the second fetched by pageToken.
        self.assertEqual(self.list_requests() - before, 2)

        limited = self.gcloud("list", "--limit", "3", "--format", "value(jobId)",
                              project=project)
        self.assertEqual(limited.rc, 0, limited)
        self.assertEqual(limited.out.split(), ids[:-4:-1])

    def test_list_of_an_empty_project_prints_nothing(self):
        run = self.gcloud("list", project="e2e-empty")
        self.assertEqual(run.rc, 0, run)
        self.assertEqual(run.out, "")
        self.assertIn("Listed 0 items.", run.err)

    # -- cancel -----------------------------------------------------------------------------

    def test_cancel_then_cancel_again(self):
        self.create(minimal_job("e2e_cancel"))
        run = self.gcloud("cancel", "e2e_cancel")
        self.assertEqual(run.rc, 0, run)
        self.assertNotIn("ERROR", run.err)

        job = self.describe_json("e2e_cancel")
        self.assertEqual(job["state"], "CANCELLED")
        self.assertIn("endTime", job)
        # As times: the fractions have as many digits as they need, so text does not sort.
        def when(field):
            return datetime.datetime.fromisoformat(job[field].replace("Z", "+00:00"))
        self.assertGreaterEqual(when("endTime"), when("createTime"), job)

        again = self.gcloud("cancel", "e2e_cancel")
        self.assertEqual(again.rc, 1, again)
        self.assertEqual(again.error_line(),
                         "FAILED_PRECONDITION: Cannot cancel an already completed job.")
        self.assertEqual(self.describe_json("e2e_cancel")["endTime"], job["endTime"])

    def test_cancel_of_a_missing_job_is_not_found(self):
        run = self.gcloud("cancel", "e2e_no_such_job")
        self.assertEqual(run.rc, 1, run)
        self.assertEqual(run.error_line(), NOT_FOUND, run)

    # -- update -----------------------------------------------------------------------------

    def test_update_labels(self):
        self.create(minimal_job("e2e_labels", labels={"team": "ml", "env": "dev"}))
        steps = [
            (["--update-labels", "env=prod,owner=bob"],
             {"team": "ml", "env": "prod", "owner": "bob"}),
            (["--remove-labels", "team,absent"], {"env": "prod", "owner": "bob"}),
            (["--clear-labels"], None),
        ]
        etag = self.describe_json("e2e_labels")["etag"]
        for flags, expected in steps:
            with self.subTest(flags[0]):
                run = self.gcloud("update", "e2e_labels", *flags)
                self.assertEqual(run.rc, 0, run)
                self.assertIn("Updated ml engine job [e2e_labels].", run.err)
                job = self.describe_json("e2e_labels")
                self.assertEqual(job.get("labels"), expected)
                self.assertNotEqual(job["etag"], etag)  # recomputed on every change
                etag = job["etag"]
                self.assertEqual(job["state"], "QUEUED")

    # -- refusals ---------------------------------------------------------------------------

    def test_refused_submissions_name_the_field(self):
        cases = {
            "GPUs from no single zone": (
                submit_args("e2e_zone_mix", "refused_zone_mix.yaml"), "trainingInput.region"),
            "3 T4s on one machine": (
                ["e2e_bad_count", "--packages", PACKAGE, "--module-name", "trainer.task",
                 "--region", "us-central1", "--runtime-version", "2.11", "--scale-tier",
                 "custom", "--master-machine-type", "n1-standard-8",
                 "--master-accelerator", "type=nvidia-tesla-t4,count=3"],
                "trainingInput.masterConfig.acceleratorConfig.count"),
        }
        for name, (args, field) in cases.items():
            with self.subTest(name):
                run = self.gcloud("submit", "training", *args)
                self.assertEqual(run.rc, 1, run)
                self.assertEqual(run.out, "")
                self.assertTrue(run.error_line().startswith("INVALID_ARGUMENT: "), run)
                self.assertIn(field, run.error_line())
                self.assertIn("'@type': type.googleapis.com/google.rpc.BadRequest", run.err)
                self.assertIn("field: " + field, run.err)
                missing = self.gcloud("describe", args[0])  # nothing was stored
                self.assertEqual(missing.error_line(), NOT_FOUND, missing)

    def test_duplicate_job_id_is_a_conflict(self):
        self.create(minimal_job("e2e_dup"))
        run = self.gcloud("submit", "training", *submit_args("e2e_dup", "seed_gpu.yaml"))
        self.assertEqual(run.rc, 1, run)
        self.assertEqual(run.out, "")
        self.assertEqual(run.error_line(),
                         "Resource in projects [p] is the subject of a conflict: "
                         "Field: job.job_id Error: A job with this id already exists.")
        # The first job is untouched.
        self.assertNotIn("masterType", self.describe_json("e2e_dup")["trainingInput"])


def main():
    def set_trainyard(path):
        global TRAINYARD
        TRAINYARD = path

    gcloud_env.main(__doc__, set_trainyard)


if __name__ == "__main__":
    main()
