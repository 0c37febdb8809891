#!/usr/bin/python3
"""The real gcloud (Cloud SDK 528) running real training jobs through a real `trainyard serve`.

`gcloud ai-platform jobs submit training --package-path ... --staging-bucket gs://...` uploads the
trainer package of tests/e2e/trainers (standard library only) through trainyard's storage API;
trainyard stages it, starts the replicas and runs the job to its end. The trainers write what
they were given (argv, TF_CONFIG, the trainyard variables) into the job directory, which the
tests read back with `gcloud storage`, and `gcloud ai-platform jobs describe` is polled until the
job is over. Covers: a `--package-path` job to SUCCEEDED with its outputs listed; the seed's GPU
configuration (master + 9 workers with 4 T4 each + 3 parameter servers) to SUCCEEDED under
`--accelerator-emulation`, and FAILED as never fitting without it; a failing trainer's
`errorMessage`; cancel of a running job; `--scale-tier basic` and a custom master + worker +
parameter server job with a consistent TF_CONFIG in every replica.

Two servers: one with `--accelerator-emulation` for every job that runs, one without for the
job that can never fit. Each stops with SIGTERM at the end and must exit cleanly.

Usage: gcloud_training_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import datetime
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SEED_GPU = os.path.join(REPO, "examples", "configs", "seed_gpu.yaml")
GCLOUD = gcloud_env.GCLOUD
TRAINYARD = None  # set by main()
PROJECT = "p"
BUCKET = "e2e-train"
RUNTIME = ["--region", "us-central1", "--runtime-version", "2.11", "--python-version", "3.7"]
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
JOB_DEADLINE_S = 300  # per job: a 2-core CI machine shared with other tests
# With TY_E2E_BACKEND=slurm (gcloud_env.py) every job runs on the Slurm test cluster: 4 nodes of
# 8 CPUs, 16000 MB and 2 fake T4s. The seed's GPU job asks for 10 n1-highcpu-16 (16 vCPUs each)
# and 40 T4s: Slurm refuses it, and accelerator emulation is the local backend's inventory only.
ON_SLURM = gcloud_env.BACKEND == "slurm"
SEED_GPU_ON_SLURM = ("the seed's GPU job (n1-highcpu-16 replicas, 40 T4s) is bigger than the "
                     "Slurm test cluster (8-CPU nodes, 8 GPUs); --accelerator-emulation is local")
# A CUSTOM job of CPU replicas: a master, one worker, one parameter server.
CUSTOM_CONFIG = """trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-4
  workerCount: 1
  workerType: n1-standard-4
  parameterServerCount: 1
  parameterServerType: n1-standard-4
"""


class ServerFixture:
    """A `trainyard serve` with SERVER_ARGS, a private gcloud configuration pointing at it, the
    bucket BUCKET, and a copy of tests/e2e/trainers (gcloud builds the sdist in place)."""

    SERVER_ARGS = ()

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-training-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.package = os.path.join(cls.tmp, "trainers", "trainer")
        shutil.copytree(os.path.join(HERE, "trainers"), os.path.dirname(cls.package),
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build",
                                                      "dist"))
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, cls.data,
                                             extra_args=cls.SERVER_ARGS)
        cls.env = gcloud_env.gcloud_environment(os.path.join(cls.tmp, "gcloud"), PROJECT,
                                                cls.server.url)
        made = cls.gcloud("storage", "buckets", "create", "gs://" + BUCKET)
        if made.rc != 0:
            cls.tearDownClass()
            raise AssertionError("cannot create gs://%s: %r" % (BUCKET, made))

    # -- helpers ----------------------------------------------------------------------------

    @classmethod
    def gcloud(cls, *args):
        proc = subprocess.run([GCLOUD, *args], env=cls.env, cwd=cls.tmp, capture_output=True,
                              text=True, timeout=180)
        return gcloud_env.Run(proc)

    def ok(self, *args):
        run = self.gcloud(*args)
        self.assertEqual(run.rc, 0, run)
        return run

    def submit(self, job_id, *flags, module="trainer.task", job_dir=None, args=("--epochs", "1")):
        """Submits the trainer package with `flags` and the job dir gs://BUCKET/<job_id>."""
        run = self.gcloud("ai-platform", "jobs", "submit", "training", job_id,
                          "--package-path", self.package, "--module-name", module,
                          "--staging-bucket", "gs://" + BUCKET, *RUNTIME,
                          "--job-dir", job_dir or "gs://%s/%s" % (BUCKET, job_id), *flags,
                          "--", *args)
        self.assertEqual(run.rc, 0, run)
        self.assertIn("Job [%s] submitted successfully." % job_id, run.err)

    def describe(self, job_id):
        return json.loads(self.ok("ai-platform", "jobs", "describe", job_id, "--format",
                                  "json").out)

    def diagnostics(self, job_id):
        """The replicas' stderr and the server's log, for a failure message."""
        text = []
        for path in sorted(glob.glob(os.path.join(self.data, "jobs", PROJECT, job_id, "logs",
                                                  "*.stderr"))):
            with open(path, encoding="utf-8", errors="replace") as f:
                text.append("--- %s\n%s" % (os.path.basename(path), f.read()[-2000:]))
        return "\n".join(text) + "\n--- trainyard serve\n" + self.server.log()

    def wait_for(self, job_id, state):
        """Polls `describe` until the job is in `state` (or over); fails on any other end."""
        deadline = time.monotonic() + JOB_DEADLINE_S
        seen = []
        while True:
            job = self.describe(job_id)
            if not seen or seen[-1] != job["state"]:
                seen.append(job["state"])
            if job["state"] == state:
                return job
            if job["state"] in TERMINAL or time.monotonic() > deadline:
                self.fail("job %s went through %s, not to %s:\n%s\n%s"
                          % (job_id, seen, state, json.dumps(job, indent=2),
                             self.diagnostics(job_id)))

    def assert_times(self, job):
        """createTime <= startTime <= endTime (RFC 3339 in UTC with Z). Compared as times, not as
        text: the fractions have as many digits as they need ("36.176Z" is before "36.176311Z")."""
        times = []
        for field in ("createTime", "startTime", "endTime"):
            self.assertRegex(job.get(field, ""), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$",
                             field)
            times.append(datetime.datetime.fromisoformat(job[field].replace("Z", "+00:00")))
        self.assertLessEqual(times[0], times[1], job)
        self.assertLessEqual(times[1], times[2], job)

    def ls(self, *args):
        return self.ok("storage", "ls", *args).out.split()

    def reports(self, job_dir):
        """Every replica's report under `job_dir`, by "<type>-<index>", read by `gcloud storage
        cat` of a wildcard: one JSON document a line."""
        out = self.ok("storage", "cat", job_dir + "/reports/*.json").out
        reports = [json.loads(line) for line in out.splitlines() if line.strip()]
        return {report["task"]: report for report in reports}

    def local_job_dir(self, uri):
        """Where gs://bucket/path reaches the trainer: <data dir>/buckets/bucket/path."""
        return os.path.join(self.data, "buckets", uri[len("gs://"):])

    def assert_cluster(self, reports, job_id, job_dir, workers=0, ps=0, epochs=1):
        """The reports are those of a chief, `workers` workers and `ps` parameter servers, and
        every replica saw the same cluster, job and arguments in TF_CONFIG and CLUSTER_SPEC."""
        expected = {"chief": 1, "worker": workers, "ps": ps}
        names = sorted("%s-%d" % (role, i) for role, n in expected.items() for i in range(n))
        self.assertEqual(sorted(reports), names)
        chief = reports["chief-0"]["tf_config"]
        cluster = chief["cluster"]
        self.assertEqual({role: len(members) for role, members in cluster.items()},
                         {role: n for role, n in expected.items() if n})
        addresses = [address for members in cluster.values() for address in members]
        self.assertEqual(len(set(addresses)), len(addresses), addresses)
        for address in addresses:
            self.assertRegex(address, r"^127\.0\.0\.1:\d+$")
        self.assertEqual(chief["job"]["job_dir"], job_dir)
        self.assertEqual(chief["job"]["runtime_version"], "2.11")
        self.assertEqual(chief["job"]["args"], ["--epochs", str(epochs)])
        local = self.local_job_dir(job_dir)
        for name, report in reports.items():
            with self.subTest(replica=name):
                role, index = name.rsplit("-", 1)
                tf_config = report["tf_config"]
                self.assertEqual(tf_config["cluster"], cluster)
                self.assertEqual(tf_config["job"], chief["job"])
                self.assertEqual(tf_config["environment"], "cloud")
                self.assertEqual(tf_config["task"], {"type": role, "index": int(index)})
                # CLUSTER_SPEC names the primary `master` whatever the runtime version.
                spec = json.loads(report["env"]["CLUSTER_SPEC"])
                spec_role = "master" if role == "chief" else role
                self.assertEqual(spec["task"], {"type": spec_role, "index": int(index)})
                self.assertEqual(spec["cluster"]["master"], cluster["chief"])
                self.assertEqual(report["argv"],
                                 ["--epochs", str(epochs), "--job-dir", local])
                self.assertEqual(report["job_dir"], local)
                self.assertEqual(report["epochs"], epochs)
                self.assertEqual(report["env"]["CLOUD_ML_JOB_ID"], job_id)
                self.assertEqual(report["env"]["TRAINYARD_JOB_DIR_URI"], job_dir)
                self.assertEqual(report["env"]["STORAGE_EMULATOR_HOST"],
                                 self.server.url.rstrip("/"))
                # On the Slurm backend every replica is a task of one Slurm job.
                self.assertEqual(report["env"]["SLURM_JOB_ID"] is not None, ON_SLURM)
        self.assertEqual(len({r["env"]["SLURM_JOB_ID"] for r in reports.values()}), 1, reports)

    def assert_ps_stopped(self, job_dir, ps):
        """Every parameter server got SIGTERM when the master ended (it notes it and exits)."""
        stopped = [name for name in self.ls(job_dir + "/reports/") if name.endswith(".stopped")]
        self.assertEqual(stopped, ["%s/reports/ps-%d.stopped" % (job_dir, i) for i in range(ps)])


class TrainingTest(ServerFixture, gcloud_env.ServerTestCase):
    """Jobs that run, on a server emulating accelerators (so the seed's GPU job fits)."""

    maxDiff = None
    SERVER_ARGS = ("--accelerator-emulation", "--stop-grace", "5")

    def test_a_package_path_job_succeeds_and_writes_its_job_dir(self):
        # The command, word for word.
        run = self.gcloud("ai-platform", "jobs", "submit", "training", "e2e_train",
                          "--package-path", self.package, "--module-name", "trainer.task",
                          "--staging-bucket", "gs://" + BUCKET, "--region", "us-central1",
                          "--runtime-version", "2.11", "--python-version", "3.7",
                          "--job-dir", "gs://%s/out" % BUCKET, "--", "--epochs", "2")
        self.assertEqual(run.rc, 0, run)
        self.assertIn("Job [e2e_train] submitted successfully.", run.err)
        job = self.wait_for("e2e_train", "SUCCEEDED")
        self.assert_times(job)
        self.assertNotIn("errorMessage", job)
        self.assertRegex(job["trainingInput"]["packageUris"][0],
                         r"^gs://%s/e2e_train/[0-9a-f]{64}/trainer-0\.1\.tar\.gz$" % BUCKET)

        out = "gs://%s/out" % BUCKET
        self.assertEqual(self.ls(out + "/"), [out + "/model/", out + "/reports/"])
        self.assertEqual(self.ls(out + "/model/"),
                         [out + "/model/epoch-1.txt", out + "/model/epoch-2.txt"])
        self.assertEqual(self.ok("storage", "cat", out + "/model/epoch-2.txt").out,
                         "epoch 2 of 2\n")
        reports = self.reports(out)
        self.assert_cluster(reports, "e2e_train", out, epochs=2)
        chief = reports["chief-0"]
        self.assertEqual(chief["cwd"],
                         os.path.join(self.data, "jobs", PROJECT, "e2e_train", "master-replica-0"))
        self.assertEqual(chief["env"]["CUDA_VISIBLE_DEVICES"], "")
        self.assertIsNone(chief["env"]["TRAINYARD_EMULATED_ACCELERATORS"])

    @unittest.skipIf(ON_SLURM, SEED_GPU_ON_SLURM)
    def test_the_seed_gpu_config_succeeds_on_emulated_t4s(self):
        job_dir = "gs://%s/e2e_seed_gpu" % BUCKET
        self.submit("e2e_seed_gpu", "--config", SEED_GPU)
        job = self.wait_for("e2e_seed_gpu", "SUCCEEDED")
        self.assert_times(job)
        self.assertEqual(job["trainingInput"]["workerCount"], "9")
        reports = self.reports(job_dir)
        self.assert_cluster(reports, "e2e_seed_gpu", job_dir, workers=9, ps=3)
        for name, report in reports.items():
            with self.subTest(replica=name):
                self.assertEqual(report["env"]["CUDA_VISIBLE_DEVICES"], "")
                emulated = None if name.startswith("ps-") else "NVIDIA_TESLA_T4:4"
                self.assertEqual(report["env"]["TRAINYARD_EMULATED_ACCELERATORS"], emulated)
        self.assert_ps_stopped(job_dir, 3)

    def test_a_failing_trainer_fails_with_its_traceback(self):
        self.submit("e2e_fail", module="trainer.fail")
        job = self.wait_for("e2e_fail", "FAILED")
        self.assert_times(job)
        message = job.get("errorMessage", "")
        self.assertIn("The replica master 0 exited with a non-zero status of 1.", message)
        self.assertIn("Traceback (most recent call last):", message)
        self.assertTrue(
            message.endswith("RuntimeError: trainer.fail always fails after its report"),
            message)
        # It did run: its report is in the job dir.
        self.assertEqual(sorted(self.reports("gs://%s/e2e_fail" % BUCKET)), ["chief-0"])

    def test_cancel_stops_a_running_job(self):
        job_dir = "gs://%s/e2e_cancel" % BUCKET
        self.submit("e2e_cancel", module="trainer.hold")
        self.wait_for("e2e_cancel", "RUNNING")
        deadline = time.monotonic() + JOB_DEADLINE_S
        while True:  # the replica has started; wait until it has written its report
            listed = self.gcloud("storage", "ls", job_dir + "/reports/")
            if listed.rc == 0 and job_dir + "/reports/chief-0.json" in listed.out.split():
                break
            self.assertLess(time.monotonic(), deadline, listed)
        pid = self.reports(job_dir)["chief-0"]["pid"]
        self.assertTrue(os.path.exists("/proc/%d" % pid), "the trainer is not running")

        run = self.ok("ai-platform", "jobs", "cancel", "e2e_cancel")
        self.assertNotIn("ERROR", run.err)
        job = self.wait_for("e2e_cancel", "CANCELLED")
        self.assert_times(job)
        # The replica's process group is gone, reaped, when the job is CANCELLED.
        self.assertFalse(os.path.exists("/proc/%d" % pid), "the trainer is still running")
        with self.assertRaises(ProcessLookupError):
            os.killpg(pid, 0)

    def test_scale_tier_basic_runs_the_chief_alone(self):
        job_dir = "gs://%s/e2e_basic" % BUCKET
        self.submit("e2e_basic", "--scale-tier", "basic")
        job = self.wait_for("e2e_basic", "SUCCEEDED")
        # BASIC is scaleTier's zero value: proto3 JSON leaves it out
        # (docs/reference/ai-platform-training.md §2.2).
        self.assertEqual(job["trainingInput"].get("scaleTier", "BASIC"), "BASIC")
        self.assert_times(job)
        reports = self.reports(job_dir)
        self.assert_cluster(reports, "e2e_basic", job_dir)
        self.assertEqual(self.ls(job_dir + "/model/"), [job_dir + "/model/epoch-1.txt"])

    def test_a_custom_master_worker_and_ps_share_one_tf_config(self):
        job_dir = "gs://%s/e2e_custom" % BUCKET
        config = os.path.join(self.tmp, "custom.yaml")
        with open(config, "w", encoding="utf-8") as f:
            f.write(CUSTOM_CONFIG)
        self.submit("e2e_custom", "--config", config)
        job = self.wait_for("e2e_custom", "SUCCEEDED")
        self.assertEqual(job["trainingInput"]["scaleTier"], "CUSTOM")
        self.assert_times(job)
        reports = self.reports(job_dir)
        self.assert_cluster(reports, "e2e_custom", job_dir, workers=1, ps=1)
        for name, report in reports.items():
            with self.subTest(replica=name):
                self.assertEqual(report["env"]["CUDA_VISIBLE_DEVICES"], "")
                self.assertIsNone(report["env"]["TRAINYARD_EMULATED_ACCELERATORS"])
        self.assert_ps_stopped(job_dir, 1)


class NeverFitsTest(ServerFixture, gcloud_env.ServerTestCase):
    """A server without accelerator emulation on this machine (no GPU)."""

    maxDiff = None

    @unittest.skipIf(ON_SLURM, SEED_GPU_ON_SLURM + "; Slurm, not trainyard's inventory, refuses "
                     "it there")
    def test_the_seed_gpu_config_never_fits_without_emulation(self):
        if shutil.which("nvidia-smi"):
            self.skipTest("this machine may have GPUs: the job might fit")
        self.submit("e2e_never_fits", "--config", SEED_GPU)
        job = self.wait_for("e2e_never_fits", "FAILED")
        self.assertEqual(job["errorMessage"],
                         "The job cannot run on this cluster: it needs 40 × NVIDIA_TESLA_T4 "
                         "(4 per replica); the largest node has 0.")
        self.assertIn("endTime", job)
        # No replica ever started.
        self.assertEqual(glob.glob(os.path.join(self.data, "jobs", PROJECT, "e2e_never_fits",
                                                "logs", "*")), [])


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
