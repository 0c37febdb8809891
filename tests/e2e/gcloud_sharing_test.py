#!/usr/bin/python3
"""Issue #34's borrowing, reclaim and reservation with the real gcloud.

Two emulated T4s (`trainyard serve --accelerator-emulation 2`, `--containers host`); every job is
a `sleep` on 1 or 2 × T4 submitted with `gcloud ai-platform jobs submit training --config` (its
masterConfig.containerCommand: no image, no package), in the project of gcloud's `--project`.

Borrowing and reclaim: projects p and q each have a quota of 1 × T4 (`trainyard quota set`). p's
second job runs on q's idle T4, borrowed (the cluster view's `borrowed`); p's third waits, and
`trainyard jobs describe` says why (its quota, nothing idle to borrow). When q submits, p's
borrowed job is preempted back to QUEUED, its log naming q's job and the reclaim, q's job runs,
and p's job within its quota goes on.

Reservation (Slurm's backfill): in project r (no quota) one job holds a T4 with a maxRunningTime
of an hour; a 2 × T4 job then waits holding the reservation, first in the queue; a later 1 × T4
job without a maxRunningTime waits behind it though a T4 is free, saying so; a still later one
whose maxRunningTime ends before the reservation could start runs on the free T4 (backfill).

Usage: gcloud_sharing_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402

TRAINYARD = None  # set by main()
DEADLINE_S = 120  # per wait: a 2-core machine shared with other tests
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")

CONFIG = """trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-4
  masterConfig:
    imageUri: local/sleep
    containerCommand: ["/bin/sleep", "600"]
    acceleratorConfig: {count: %d, type: NVIDIA_TESLA_T4}
%s"""


class GcloudSharingTest(gcloud_env.ServerTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(gcloud_env.GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-sharing-")
        cls.server = gcloud_env.start_server(
            TRAINYARD, cls.tmp, os.path.join(cls.tmp, "data"),
            extra_args=["--accelerator-emulation", "2", "--containers", "host",
                        "--stop-grace", "1", "--stop-jobs-on-exit"])
        cls.env = gcloud_env.gcloud_environment(os.path.join(cls.tmp, "gcloud"), "p",
                                                cls.server.url, logging_url=cls.server.url)

    # -- helpers ----------------------------------------------------------------------------

    def run_tool(self, *cmd, env=None):
        proc = subprocess.run(cmd, env=env or self.env, cwd=self.tmp, capture_output=True,
                              text=True, timeout=120)
        return gcloud_env.Run(proc)

    def gcloud(self, project, *args):
        run = self.run_tool(gcloud_env.GCLOUD, *args, "--project", project)
        self.assertEqual(run.rc, 0, run)
        return run

    def trainyard(self, *args):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        run = self.run_tool(TRAINYARD, *args, "--server", self.server.url, env=env)
        self.assertEqual(run.rc, 0, run)
        return run

    def submit(self, project, job_id, gpus=1, max_running=""):
        config = os.path.join(self.tmp, "%s-%s.yaml" % (project, job_id))
        scheduling = "  scheduling: {maxRunningTime: %s}\n" % max_running if max_running else ""
        with open(config, "w", encoding="utf-8") as f:
            f.write(CONFIG % (gpus, scheduling))
        run = self.gcloud(project, "ai-platform", "jobs", "submit", "training", job_id,
                          "--config", config, "--region", "us-central1")
        self.assertIn("Job [%s] submitted successfully." % job_id, run.err)

    def get(self, path):
        with urllib.request.urlopen(self.server.url + path, timeout=60) as answer:
            return json.loads(answer.read())

    def job(self, project, job_id):
        return self.get("v1/projects/%s/jobs/%s" % (project, job_id))

    def wait_state(self, project, job_id, state):
        def reached():
            job = self.job(project, job_id)
            if job["state"] in TERMINAL and state not in TERMINAL:
                self.fail("%s/%s ended: %s" % (project, job_id, job))
            return job if job["state"] == state else None
        return gcloud_env.wait_until("%s/%s %s" % (project, job_id, state), reached, DEADLINE_S,
                                     self.server.log)

    def queue(self, project):
        """{job id: wait reason} of the project's queue, from the cluster view."""
        return {q["jobId"]: q["reason"]
                for q in self.get("trainyard/v1/projects/%s/cluster" % project)["queue"]}

    def project_row(self, project):
        rows = self.get("trainyard/v1/projects/%s/cluster" % project)["projects"]
        return next(row for row in rows if row["project"] == project)

    def described(self, project, job_id):
        """gcloud's describe of the job, as JSON."""
        return json.loads(self.gcloud(project, "ai-platform", "jobs", "describe", job_id,
                                      "--format", "json").out)

    def post(self, path):
        request = urllib.request.Request(self.server.url + path, data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read())

    def end_all(self, project):
        """Cancels the project's jobs (the API's cancel: not what is tested) and waits until
        each has ended, so the next test finds the T4s free; a cleanup, run pass or fail."""
        jobs = self.get("v1/projects/%s/jobs" % project).get("jobs", [])
        for job in jobs:
            if job["state"] not in TERMINAL:
                self.post("v1/projects/%s/jobs/%s:cancel" % (project, job["jobId"]))
        for job in jobs:
            gcloud_env.wait_until("%s/%s ended" % (project, job["jobId"]),
                                  lambda: self.job(project, job["jobId"])["state"] in TERMINAL,
                                  DEADLINE_S, self.server.log)

    # -- tests ------------------------------------------------------------------------------

    def test_a_borrowed_job_is_preempted_when_its_owner_reclaims_the_quota(self):
        for project in ("p", "q"):
            self.trainyard("quota", "set", project, "--accelerator", "NVIDIA_TESLA_T4=1")
            self.addCleanup(self.trainyard, "quota", "delete", project)
            self.addCleanup(self.end_all, project)
        self.submit("p", "own")
        self.wait_state("p", "own", "RUNNING")
        self.submit("p", "borrower")
        self.wait_state("p", "borrower", "RUNNING")
        self.assertEqual(self.project_row("p")["borrowed"]["accelerators"],
                         {"NVIDIA_TESLA_T4": 1})
        self.submit("p", "third")
        reason = gcloud_env.wait_until("p/third's wait reason",
                                       lambda: self.queue("p").get("third"), DEADLINE_S,
                                       self.server.log)
        self.assertEqual(reason, "Project p uses 2 of its 1 × NVIDIA_TESLA_T4 (quota), and no "
                                 "idle devices are left to borrow.")
        shown = self.trainyard("jobs", "describe", "third", "--project", "p")
        self.assertIn("\nwaitReason: " + reason + "\n", shown.err)

        self.submit("q", "owner")
        self.wait_state("p", "borrower", "QUEUED")
        self.wait_state("q", "owner", "RUNNING")
        self.assertEqual(self.described("p", "borrower")["state"], "QUEUED")
        self.assertEqual(self.described("p", "own")["state"], "RUNNING")
        self.assertEqual(self.described("p", "third")["state"], "QUEUED")

        self.end_all("q")
        self.end_all("p")
        logs = self.gcloud("p", "ai-platform", "jobs", "stream-logs", "borrower",
                           "--polling-interval=1")
        self.assertIn("The job was preempted by job q/owner: project q reclaims its quota, which "
                      "this job borrowed", logs.out + logs.err)

    def test_a_gang_job_holds_a_reservation_that_only_a_shorter_job_may_use(self):
        self.addCleanup(self.end_all, "r")
        self.submit("r", "long", max_running="3600s")
        self.wait_state("r", "long", "RUNNING")
        self.submit("r", "gang", gpus=2, max_running="60s")
        self.submit("r", "plain")
        # While a T4 is free, the job without maxRunningTime is held back by the reservation (once
        # the short job has taken that T4, the reason becomes "waiting for room": read it first).
        def held_back():
            queue = self.queue("r")
            behind = re.match(r"Waiting behind the reservation for job r/gang ",
                              queue.get("plain", ""))
            return queue if behind else None
        queue = gcloud_env.wait_until("r/plain waiting behind the reservation", held_back,
                                      DEADLINE_S, self.server.log)
        self.assertEqual(sorted(queue), ["gang", "plain"], queue)
        self.assertRegex(queue["gang"], r"It holds the reservation: expected to start by \S+",
                         queue)
        self.assertEqual(self.job("r", "plain")["state"], "QUEUED")
        self.submit("r", "short", max_running="60s")
        self.wait_state("r", "short", "RUNNING")  # backfilled on the free T4
        self.assertEqual(sorted(self.queue("r")), ["gang", "plain"])
        gang, plain = self.described("r", "gang"), self.described("r", "plain")
        self.assertEqual((gang["state"], gang.get("jobPosition")), ("QUEUED", "1"), gang)
        self.assertEqual((plain["state"], plain.get("jobPosition")), ("QUEUED", "2"), plain)
        self.assertEqual(self.job("r", "long")["state"], "RUNNING")  # equal priority: kept


if __name__ == "__main__":
    gcloud_env.main(__doc__, lambda path: globals().__setitem__("TRAINYARD", path))
