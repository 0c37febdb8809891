#!/usr/bin/python3
"""Jobs run unprivileged (issue #17): `trainyard serve --run-as trainyard-job` (the user
scripts/setup.sh creates) with the real gcloud submitting a trainer package.

The trainer and pip run as that user, not as the server's root: the trainer sees its uid, its
HOME, and only the allow-listed part of the server's environment (a secret the server has does
not reach it; a `--pass-env` prefix does); it cannot read the server's databases; the files pip
installed are the job user's. Local packageUris come only from `--package-dir` directories: any
other path is refused at submit with the field named, and a symbolic link in an allowed directory
that leads out fails the job at staging. A container replica runs as the user too (podman
--user) and writes to its bucket through the /gcs mount. `serve` refuses --run-as for root or an unknown user.

Usage: run_as_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

GCLOUD = gcloud_env.GCLOUD
TRAINYARD = None  # set by main()
JOB_USER = gcloud_env.JOB_USER
PROJECT = "p"
BUCKET = "e2e-run-as"
JOB = "run_as_job"
RUNTIME = ["--region", "us-central1", "--runtime-version", "2.11", "--python-version", "3.7"]
SECRET = "s3cret-of-the-server"
CONTAINER_IMAGE = "localhost/trainyard-test/trainer:1"  # tests/images (fixture container_images)
COMMAND_TIMEOUT_S = 300
SETUP_PY = """from setuptools import setup

setup(name="runastrainer", version="0.1", packages=["runastrainer"])
"""
# Prints who it is, what it sees of its environment, and what it may read.
PROBE_PY = '''import argparse
import json
import os

parser = argparse.ArgumentParser()
parser.add_argument("--probe", action="append", default=[])
args, _ = parser.parse_known_args()
print("ids " + json.dumps({"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups()}),
      flush=True)
print("env " + json.dumps(dict(os.environ)), flush=True)
for path in args.probe:
    try:
        with open(path, "rb") as f:
            f.read(1)
        print("read %s: allowed" % path, flush=True)
    except PermissionError:
        print("read %s: denied" % path, flush=True)
    except FileNotFoundError:  # out of the job's view of the data directory (issue #31)
        print("read %s: not in view" % path, flush=True)
with open("written-by-the-trainer.txt", "w") as f:
    f.write("ok")
'''


class RunAsTest(gcloud_env.ServerTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.user, cls.tmp = gcloud_env.run_as_setup("trainyard-e2e-run-as-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.allowed = os.path.join(cls.tmp, "packages")
        os.makedirs(cls.allowed)
        try:
            cls.server = gcloud_env.TrainyardServer(
                TRAINYARD, cls.data,
                extra_args=["--run-as", JOB_USER, "--pass-env", "PASSME_*",
                            "--package-dir", cls.allowed],
                extra_env={"E2E_SERVER_SECRET": SECRET, "PASSME_ONE": "1"}).start()
        except Exception:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise
        cls.env = gcloud_env.gcloud_environment(os.path.join(cls.tmp, "gcloud"), PROJECT,
                                                cls.server.url, logging_url=cls.server.url)
        cls.env["CLOUDSDK_ML_ENGINE_POLLING_INTERVAL"] = "1"
        cls.package = os.path.join(cls.tmp, "pkg", "runastrainer")
        os.makedirs(cls.package)
        for path, text in (("../setup.py", SETUP_PY), ("__init__.py", ""), ("probe.py", PROBE_PY)):
            with open(os.path.join(cls.package, path), "w", encoding="utf-8") as f:
                f.write(text)
        made = cls.gcloud("storage", "buckets", "create", "gs://" + BUCKET)
        probes = ["--probe=" + os.path.join(cls.data, name)
                  for name in ("trainyard.db", "storage.db", "trainyard.db-wal")]
        cls.submitted = cls.gcloud("ai-platform", "jobs", "submit", "training", JOB,
                                   "--package-path", cls.package, "--module-name",
                                   "runastrainer.probe", "--staging-bucket", "gs://" + BUCKET,
                                   "--stream-logs", *RUNTIME, "--", *probes)
        if made.rc != 0 or cls.submitted.rc != 0:
            cls.tearDownClass()
            raise AssertionError("setup failed: %r %r" % (made, cls.submitted))
        cls.logs = cls.submitted.out + cls.submitted.err

    @classmethod
    def gcloud(cls, *args):
        proc = subprocess.run([GCLOUD, *args], env=cls.env, cwd=cls.tmp, capture_output=True,
                              text=True, timeout=COMMAND_TIMEOUT_S)
        return gcloud_env.Run(proc)

    def logged(self, prefix):
        for line in self.logs.splitlines():
            at = line.find(prefix + " {")
            if at >= 0:
                return json.loads(line[at + len(prefix) + 1:])
        self.fail("no %r line in the job's logs:\n%s" % (prefix, self.logs))

    def submit_rest(self, job_id, package_uri):
        body = json.dumps({"jobId": job_id, "trainingInput": {
            "region": "us-central1", "runtimeVersion": "2.11", "pythonVersion": "3.7",
            "packageUris": [package_uri], "pythonModule": "runastrainer.probe"}}).encode()
        request = urllib.request.Request(
            self.server.url + "v1/projects/%s/jobs" % PROJECT, data=body, method="POST",
            headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def wait_for_end(self, job_id, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            url = self.server.url + "v1/projects/%s/jobs/%s" % (PROJECT, job_id)
            with urllib.request.urlopen(url, timeout=30) as reply:
                job = json.loads(reply.read())
            if job["state"] in ("SUCCEEDED", "FAILED", "CANCELLED"):
                return job
            time.sleep(0.2)
        self.fail("job %s did not end within %ds" % (job_id, timeout))

    def staged_sdist(self):
        found = glob.glob(os.path.join(self.data, "buckets", BUCKET, "**", "*.tar.gz"),
                          recursive=True)
        self.assertTrue(found, "gcloud staged no package in gs://%s" % BUCKET)
        return found[0]

    # -- tests ------------------------------------------------------------------------------

    def test_the_trainer_runs_as_the_job_user(self):
        ids = self.logged("ids")
        self.assertEqual(ids, {"uid": self.user.pw_uid, "gid": self.user.pw_gid, "groups": []})
        job_dir = os.path.join(self.data, "jobs", PROJECT, JOB)
        written = os.stat(os.path.join(job_dir, "master-replica-0", "written-by-the-trainer.txt"))
        self.assertEqual(written.st_uid, self.user.pw_uid)
        self.assertEqual(os.stat(job_dir).st_gid, self.user.pw_gid)
        self.assertEqual(os.stat(job_dir).st_mode & 0o007, 0, "others may not enter a job's dir")

    def test_the_installed_package_is_sealed(self):
        # pip ran as the job user in a temporary directory; the server then made the entry its
        # own, readable by the user's group and writable by nobody else (issue #31).
        installed = glob.glob(os.path.join(self.data, "jobs", PROJECT, JOB, "packages",
                                           "runastrainer", "probe.py"))
        self.assertEqual(len(installed), 1)
        st = os.stat(installed[0])
        self.assertEqual((st.st_uid, st.st_gid), (0, self.user.pw_gid))
        self.assertEqual(st.st_mode & 0o022, 0)

    def test_only_the_allow_listed_environment_reaches_the_trainer(self):
        env = self.logged("env")
        self.assertNotIn("E2E_SERVER_SECRET", env)
        self.assertNotIn(SECRET, json.dumps(env))
        self.assertEqual(env.get("PASSME_ONE"), "1")  # --pass-env PASSME_*
        self.assertEqual(env["HOME"], self.user.pw_dir)
        self.assertEqual(env["USER"], JOB_USER)
        self.assertIn("PATH", env)
        self.assertIn("TF_CONFIG", env)  # what the plan sets still arrives

    def test_the_servers_databases_are_out_of_reach(self):
        for name in ("trainyard.db", "storage.db", "trainyard.db-wal"):
            # Not in the job's view (the data directory shows only its own files); and the
            # modes would refuse them besides.
            self.assertIn("read %s: not in view" % os.path.join(self.data, name), self.logs)
            self.assertEqual(os.stat(os.path.join(self.data, name)).st_mode & 0o077, 0, name)

    def test_local_packages_only_from_the_package_dirs(self):
        status, body = self.submit_rest("run_as_etc", "/etc/passwd")
        self.assertEqual(status, 400, body)
        violations = body["error"]["details"][0]["fieldViolations"]
        self.assertEqual(violations[0]["field"], "trainingInput.packageUris[0]")
        self.assertIn("is outside the directories this server installs local packages from",
                      violations[0]["description"])
        status, body = self.submit_rest("run_as_dots", self.allowed + "/../../etc/passwd")
        self.assertEqual(status, 400, body)

        inside = os.path.join(self.allowed, "runastrainer-0.1.tar.gz")
        shutil.copy(self.staged_sdist(), inside)
        os.chmod(inside, 0o644)
        status, body = self.submit_rest("run_as_local", inside)
        self.assertEqual(status, 200, body)
        self.assertEqual(self.wait_for_end("run_as_local")["state"], "SUCCEEDED")

        outside = os.path.join(self.tmp, "outside-0.1.tar.gz")
        shutil.copy(self.staged_sdist(), outside)
        link = os.path.join(self.allowed, "link-0.1.tar.gz")
        os.symlink(outside, link)
        status, body = self.submit_rest("run_as_link", link)
        self.assertEqual(status, 200, body)  # the path as given is inside
        job = self.wait_for_end("run_as_link")
        self.assertEqual(job["state"], "FAILED")
        self.assertIn("is not below a directory this server installs local packages from",
                      job["errorMessage"])

    def test_a_container_runs_as_the_job_user_and_writes_its_bucket(self):
        exists = subprocess.run(["podman", "image", "exists", CONTAINER_IMAGE],
                                capture_output=True, timeout=60)
        if exists.returncode != 0:
            if os.environ.get("TRAINYARD_REQUIRE_CONTAINERS") == "1":
                self.fail("%s is missing (the fixture container_images builds it)"
                          % CONTAINER_IMAGE)
            self.skipTest("%s is missing" % CONTAINER_IMAGE)
        body = json.dumps({"jobId": "run_as_container", "trainingInput": {
            "region": "us-central1", "masterConfig": {
                "imageUri": CONTAINER_IMAGE,
                "containerCommand": ["sh", "-c", "echo ids $(id -u):$(id -g) && "
                                     "echo from-the-container > /gcs/%s/container.txt" % BUCKET]}}})
        request = urllib.request.Request(
            self.server.url + "v1/projects/%s/jobs" % PROJECT, data=body.encode(), method="POST",
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            self.assertEqual(reply.status, 200)
        job = self.wait_for_end("run_as_container")
        self.assertEqual(job["state"], "SUCCEEDED", job)
        log = os.path.join(self.data, "jobs", PROJECT, "run_as_container", "logs",
                           "master-replica-0.log")
        with open(log, encoding="utf-8") as f:
            self.assertIn("ids %d:%d" % (self.user.pw_uid, self.user.pw_gid), f.read())
        written = os.path.join(self.data, "buckets", BUCKET, "container.txt")
        self.assertEqual(os.stat(written).st_uid, self.user.pw_uid)

    def test_serve_refuses_root_and_unknown_users(self):
        for user, message in (("root", "'root' is root"),
                              ("no-such-user-here", "there is no user 'no-such-user-here'")):
            proc = subprocess.run([TRAINYARD, "serve", "--listen", "127.0.0.1:0", "--data-dir",
                                   os.path.join(self.tmp, "refused"), "--run-as", user],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn(message, proc.stderr)


if __name__ == "__main__":
    def _set(path):
        global TRAINYARD
        TRAINYARD = path
    gcloud_env.main(__doc__, _set)
