#!/usr/bin/python3
"""Issue #34's quotas with the real clients against a real `trainyard serve`.

An admin sets a project's quota with `trainyard quota set`; then the real gcloud
(`ai-platform jobs submit training`) and the real kubectl (`create -f`) each submit a job that can
never fit it, and each is refused in its own words: gcloud prints RESOURCE_EXHAUSTED with the quota
metric, kubectl prints `Error from server (Forbidden)` with `exceeded quota`. Nothing is stored.
Jobs that fit are accepted. The server holds its queue, so nothing runs.

Usage: quota_refusal_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402
import kube_env  # noqa: E402

GCLOUD = gcloud_env.GCLOUD
KUBECTL = kube_env.KUBECTL
TRAINYARD = None  # set by main()
PROJECT = "p"
PACKAGE = "gs://bkt1/trainer-0.1.tar.gz"

class QuotaRefusalTest(gcloud_env.ServerTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        for tool in (GCLOUD, KUBECTL):
            if not os.path.exists(tool):
                raise unittest.SkipTest("%s is not installed" % tool)
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-quota-")
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, os.path.join(cls.tmp, "data"),
                                             extra_args=["--hold-queue"])
        cls.env = gcloud_env.gcloud_environment(os.path.join(cls.tmp, "gcloud"), PROJECT,
                                                cls.server.url)
        kubeconfig = os.path.join(cls.tmp, "kubeconfig")
        made = subprocess.run([TRAINYARD, "kubeconfig", "--server", cls.server.url,
                               "--namespace", PROJECT], capture_output=True, text=True, check=True)
        with open(kubeconfig, "w", encoding="utf-8") as f:
            f.write(made.stdout)
        cls.kube_env = dict(os.environ, KUBECONFIG=kubeconfig, HOME=cls.tmp)
        cls.cli_env = dict(os.environ, TRAINYARD_SERVER=cls.server.url)

    def run_tool(self, cmd, env, stdin=None):
        proc = subprocess.run(cmd, env=env, cwd=self.tmp, input=stdin, capture_output=True,
                              text=True, timeout=120)
        return gcloud_env.Run(proc)

    def trainyard(self, *args):
        return self.run_tool([TRAINYARD, *args], self.cli_env)

    def submit(self, job_id, machine_type):
        return self.run_tool(
            [GCLOUD, "ai-platform", "jobs", "submit", "training", job_id,
             "--scale-tier", "CUSTOM", "--master-machine-type", machine_type,
             "--packages", PACKAGE, "--module-name", "trainer.task", "--region", "us-central1",
             "--runtime-version", "2.11", "--python-version", "3.7"], self.env)

    def kubectl(self, *args, stdin=None):
        return self.run_tool([KUBECTL, *args], self.kube_env, stdin=stdin)

    def test_jobs_beyond_the_quota_are_refused_in_each_clients_words(self):
        run = self.trainyard("quota", "set", PROJECT, "--cpus", "8", "--memory", "64Gi")
        self.assertEqual(run.rc, 0, run)
        self.assertIn("cpus: 8", run.out)

        # gcloud: n1-highcpu-16 has 16 vCPUs, more than the project may ever hold.
        run = self.submit("too_big", "n1-highcpu-16")
        self.assertEqual(run.rc, 1, run)
        self.assertIn("RESOURCE_EXHAUSTED", run.err)
        self.assertIn("The following quota metrics exceed quota limits: "
                      "aiplatform.googleapis.com/custom_model_training_cpus", run.err)
        self.assertIn("The job needs 16 vCPUs at once and project p's quota is 8", run.err)
        run = self.run_tool([GCLOUD, "ai-platform", "jobs", "describe", "too_big"], self.env)
        self.assertEqual(run.rc, 1, run)
        self.assertIn("NOT_FOUND", run.err)

        # kubectl: admission's Forbidden for a ResourceQuota excess (3 workers, each an
        # n1-standard-4 of 4 vCPUs, the TFJob mapping's machine type).
        run = self.kubectl("create", "-f", "-", stdin=kube_env.tfjob("too-big", workers=3))
        self.assertEqual(run.rc, 1, run)
        self.assertIn('Error from server (Forbidden): error when creating "STDIN": '
                      'tfjobs.kubeflow.org "too-big" is forbidden: exceeded quota: p, requested: '
                      'requests.cpu=12, limited: requests.cpu=8', run.err)
        run = self.kubectl("get", "tfjob", "too-big")
        self.assertEqual(run.rc, 1, run)
        self.assertIn("NotFound", run.err)

        # Within the quota, both are accepted.
        run = self.submit("fits", "n1-standard-4")
        self.assertEqual(run.rc, 0, run)
        run = self.kubectl("create", "-f", "-", stdin=kube_env.tfjob("fits", workers=2))
        self.assertEqual(run.rc, 0, run)

        # The quota is shown, and once deleted the big job is accepted.
        run = self.trainyard("quota", "list")
        self.assertEqual(run.rc, 0, run)
        self.assertRegex(run.out, r"\np\s+-\s+8\s+64Gi\s+-\s+1\n")
        self.assertEqual(self.trainyard("quota", "delete", PROJECT).rc, 0)
        run = self.submit("too_big", "n1-highcpu-16")
        self.assertEqual(run.rc, 0, run)


if __name__ == "__main__":
    gcloud_env.main(__doc__, lambda path: globals().__setitem__("TRAINYARD", path))
