#!/usr/bin/python3
"""Vertex AI custom training (issue #20) with the real gcloud 528 against `trainyard serve`.

gcloud's `api_endpoint_overrides/aiplatform` points at the server, so `gcloud ai custom-jobs` and
`gcloud ai hp-tuning-jobs` run unchanged. Covers: a Python-package job of two worker pools
(`--worker-pool-spec` twice, Google's prebuilt executor image run with the server's Python) to
JOB_STATE_SUCCEEDED, its replicas named workerpool0-0, workerpool1-0/1 in `stream-logs`, each
with CLUSTER_SPEC keyed by pool and TF_CONFIG naming the chief; `--config` with four worker pools,
per-pool args and env, and AIP_MODEL_DIR & co. from baseOutputDirectory; a container pool
(the fixture's trainer image) writing an object through /gcs/<bucket>; `describe`, `list` (and
the server-side `filter`), `cancel` of a running job to JOB_STATE_CANCELLED with error code 1;
an `hp-tuning-jobs create` study of two metrics to completion with its trials (each measured on
both) in `describe`; refusals naming the field (the chief's replica count, a GPU count the
machine does not take, an unknown region).

Job states are polled over HTTP (cheaper than gcloud on a 2-core machine); what is asserted comes
from gcloud's output. Usage: gcloud_vertex_test.py --trainyard PATH [unittest args].
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE_DIR = os.path.join(HERE, "trainers", "vertex_probe")
PYTHON = "/usr/bin/python3"
GCLOUD = gcloud_env.GCLOUD
TRAINYARD = None  # set by main()
PROJECT = "p"
REGION = "us-central1"
BUCKET = "e2e-vertex"
PACKAGE = "gs://%s/vertex_probe-0.1.tar.gz" % BUCKET
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-11:latest"
TRAINER_IMAGE = "localhost/trainyard-test/trainer:1"
TERMINAL = ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED")
JOB_DEADLINE_S = 240
STATE_DIR = os.environ.get("TY_IMAGES_STATE_DIR", "")


def pool(replicas=1, **extra):
    spec = "machine-type=n1-standard-4,replica-count=%d" % replicas
    for key, value in extra.items():
        spec += ",%s=%s" % (key.replace("_", "-"), value)
    return "--worker-pool-spec=" + spec


def python_pool_yaml(replicas, args=(), env=()):
    lines = ["  - machineSpec: {machineType: n1-standard-4}",
             "    replicaCount: %d" % replicas,
             "    pythonPackageSpec:",
             "      executorImageUri: %s" % EXECUTOR,
             "      packageUris: [%s]" % PACKAGE,
             "      pythonModule: vertex_probe.task",
             "      args: %s" % json.dumps(list(args)),
             "      env: %s" % json.dumps([{"name": k, "value": v} for k, v in env])]
    return "\n".join(lines)


FOUR_POOLS = "\n".join([
    "baseOutputDirectory: {outputUriPrefix: gs://%s/four}" % BUCKET,
    "workerPoolSpecs:",
    python_pool_yaml(1, ["--who=chief"], [("POOL_ENV", "zero")]),
    python_pool_yaml(2, ["--who=worker"]),
    python_pool_yaml(1, ["--who=ps"]),
    python_pool_yaml(1, ["--who=evaluator"], [("POOL_ENV", "three")]),
]) + "\n"

SLEEPER = "workerPoolSpecs:\n" + python_pool_yaml(1, [], [("PROBE_SLEEP", "300")]) + "\n"

# A grid of conditional parameters: momentum exists only for sgd, so the grid's four points give
# three distinct trials, (sgd, 0.5), (sgd, 0.9) and (adam): a maxTrialCount of 4 ends at 3. Two
# metrics: every trial's finalMeasurement lists both.
STUDY = """studySpec:
  metrics:
  - {metricId: accuracy, goal: MAXIMIZE}
  - {metricId: loss, goal: MINIMIZE}
  parameters:
  - parameterId: lr
    discreteValueSpec: {values: [0.004]}
  - parameterId: optimizer
    categoricalValueSpec: {values: [sgd, adam]}
    conditionalParameterSpecs:
    - parentCategoricalValues: {values: [sgd]}
      parameterSpec:
        parameterId: momentum
        discreteValueSpec: {values: [0.5, 0.9]}
  algorithm: GRID_SEARCH
trialJobSpec:
  baseOutputDirectory: {outputUriPrefix: gs://%s/study}
  workerPoolSpecs:
%s
""" % (BUCKET, python_pool_yaml(1))

CONTAINER_SCRIPT = (
    "import os; "
    "open('/gcs/%s/from-container.txt', 'w').write(os.environ['CLUSTER_SPEC']); "
    "print('AIP_MODEL_DIR', os.environ.get('AIP_MODEL_DIR'))" % BUCKET)


def fixture_ready():
    if not STATE_DIR or not os.path.exists(os.path.join(STATE_DIR, "env")):
        return False
    return True


class VertexTest(gcloud_env.ServerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-vertex-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, cls.data,
                                             extra_args=("--stop-grace", "3"))
        cls.env = gcloud_env.gcloud_environment(
            os.path.join(cls.tmp, "gcloud"), PROJECT, cls.server.url,
            logging_url=cls.server.url, aiplatform_url=cls.server.url)
        try:
            cls.stage_package()
            cls.jobs = {}
            cls.logs = {}
            cls.jobs["pools"] = cls.create_custom(
                "pools", pool(python_module="vertex_probe.task", executor_image_uri=EXECUTOR),
                pool(2, python_module="vertex_probe.task", executor_image_uri=EXECUTOR),
                "--python-package-uris=" + PACKAGE, "--args=--epochs=2", "--labels=suite=e2e")
            cls.jobs["four"] = cls.create_custom("four", "--config", cls.write("four.yaml",
                                                                              FOUR_POOLS))
            cls.jobs["study"] = cls.create_study()
        except Exception:
            cls.tearDownClass()
            raise

    # -- helpers ----------------------------------------------------------------------------

    @classmethod
    def write(cls, name, text):
        path = os.path.join(cls.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    @classmethod
    def gcloud(cls, *args):
        proc = subprocess.run([GCLOUD, *args], env=cls.env, cwd=cls.tmp, capture_output=True,
                              text=True, timeout=180)
        return gcloud_env.Run(proc)

    @classmethod
    def must(cls, *args):
        run = cls.gcloud(*args)
        if run.rc != 0:
            raise AssertionError("gcloud %s: %r" % (" ".join(args), run))
        return run

    @classmethod
    def stage_package(cls):
        build = os.path.join(cls.tmp, "probe")
        shutil.copytree(PROBE_DIR, build)
        subprocess.run([PYTHON, "setup.py", "-q", "sdist", "--formats=gztar"], cwd=build,
                       check=True, capture_output=True, timeout=120)
        cls.must("storage", "buckets", "create", "gs://" + BUCKET)
        cls.must("storage", "cp", os.path.join(build, "dist", "vertex_probe-0.1.tar.gz"),
                 PACKAGE)

    @classmethod
    def created_id(cls, run):
        """The numeric id in gcloud's "CustomJob [projects/…/customJobs/ID] is submitted" or
        "Hyperparameter tuning job [ID] submitted"."""
        match = re.search(r"\[(?:projects/\S+/)?(\d+)\]", run.out + run.err)
        if not match:
            raise AssertionError("no job name in %r" % run)
        return match.group(1)

    @classmethod
    def create_custom(cls, name, *flags):
        return cls.created_id(cls.must("ai", "custom-jobs", "create", "--region", REGION,
                                       "--display-name", name, *flags))

    @classmethod
    def create_study(cls):
        return cls.created_id(cls.must(
            "ai", "hp-tuning-jobs", "create", "--region", REGION, "--display-name", "study",
            "--config", cls.write("study.yaml", STUDY), "--max-trial-count", "4",
            "--parallel-trial-count", "2"))

    def resource(self, collection, job_id):
        url = "%sv1/projects/%s/locations/%s/%s/%s" % (self.server.url, PROJECT, REGION,
                                                      collection, job_id)
        with urllib.request.urlopen(url, timeout=30) as response:
            return json.load(response)

    def wait(self, job_id, states=TERMINAL, collection="customJobs"):
        deadline = time.monotonic() + JOB_DEADLINE_S
        while time.monotonic() < deadline:
            job = self.resource(collection, job_id)
            if job["state"] in states:
                return job
            time.sleep(0.5)
        self.fail("job %s did not reach %s: %r\n%s" % (job_id, states, job, self.server.log()))

    def describe(self, job_id, kind="custom-jobs"):
        run = self.must("ai", kind, "describe", job_id, "--region", REGION, "--format=json")
        return json.loads(run.out)

    def log_lines(self, job_id, kind="custom-jobs"):
        """(task, text) of every entry `gcloud ai <kind> stream-logs` prints for an ended job
        (read once per job)."""
        if job_id not in self.logs:
            run = self.must("ai", kind, "stream-logs", job_id, "--region", REGION,
                            "--polling-interval", "1")
            lines = []
            for line in run.out.splitlines():
                parts = line.split("\t")
                if len(parts) >= 4:
                    lines.append((parts[2], parts[3]))
            self.logs[job_id] = lines
        return self.logs[job_id]

    def values(self, job_id, key):
        """{task: value} of the probe's `KEY value` lines."""
        return {task: text[len(key) + 1:] for task, text in self.log_lines(job_id)
                if text.startswith(key + " ")}

    # -- tests ------------------------------------------------------------------------------

    def test_two_pools_from_flags_run_a_python_package_named_by_pool(self):
        job_id = self.jobs["pools"]
        self.wait(job_id)
        job = self.describe(job_id)
        self.assertEqual(job["state"], "JOB_STATE_SUCCEEDED", job)
        self.assertEqual(job["name"],
                         "projects/%s/locations/%s/customJobs/%s" % (PROJECT, REGION, job_id))
        self.assertEqual(job["displayName"], "pools")
        self.assertEqual(job["labels"], {"suite": "e2e"})
        self.assertEqual(job["jobSpec"]["workerPoolSpecs"][1]["replicaCount"], "2")
        specs = self.values(job_id, "CLUSTER_SPEC")
        self.assertEqual(sorted(specs), ["workerpool0-0", "workerpool1-0", "workerpool1-1"])
        for task, text in specs.items():
            spec = json.loads(text)
            self.assertEqual(sorted(spec["cluster"]), ["workerpool0", "workerpool1"], task)
            self.assertEqual(len(spec["cluster"]["workerpool1"]), 2)
            self.assertEqual(spec["task"]["type"], task.split("-")[0])
            self.assertEqual(spec["task"]["index"], int(task.split("-")[1]))
        tf_config = json.loads(self.values(job_id, "TF_CONFIG")["workerpool0-0"])
        self.assertEqual(tf_config["task"], {"type": "chief", "index": 0})
        self.assertEqual(sorted(tf_config["cluster"]), ["chief", "worker"])
        self.assertEqual(self.values(job_id, "ARGS")["workerpool1-1"], '["--epochs=2"]')

    def test_a_config_of_four_pools_gives_each_its_role_args_and_env(self):
        job_id = self.jobs["four"]
        job = self.wait(job_id)
        self.assertEqual(job["state"], "JOB_STATE_SUCCEEDED", job)
        tf_types = {task: json.loads(text)["task"]["type"]
                    for task, text in self.values(job_id, "TF_CONFIG").items()}
        self.assertEqual(tf_types, {"workerpool0-0": "chief", "workerpool1-0": "worker",
                                    "workerpool1-1": "worker", "workerpool2-0": "ps",
                                    "workerpool3-0": "evaluator"})
        spec = json.loads(self.values(job_id, "CLUSTER_SPEC")["workerpool3-0"])
        self.assertEqual(sorted(spec["cluster"]),
                         ["workerpool0", "workerpool1", "workerpool2", "workerpool3"])
        args = self.values(job_id, "ARGS")
        self.assertEqual(args["workerpool2-0"], '["--who=ps"]')
        self.assertEqual(args["workerpool3-0"], '["--who=evaluator"]')
        env = self.values(job_id, "POOL_ENV")
        self.assertEqual((env["workerpool0-0"], env["workerpool1-0"], env["workerpool3-0"]),
                         ("zero", "", "three"))
        self.assertEqual(self.values(job_id, "AIP_MODEL_DIR")["workerpool0-0"],
                         "gs://%s/four/model/" % BUCKET)
        self.assertEqual(self.values(job_id, "AIP_TENSORBOARD_LOG_DIR")["workerpool1-1"],
                         "gs://%s/four/logs/" % BUCKET)

    def test_list_shows_the_jobs_and_the_server_filters_them(self):
        self.wait(self.jobs["pools"])
        run = self.must("ai", "custom-jobs", "list", "--region", REGION, "--format=json")
        names = [job["displayName"] for job in json.loads(run.out)]
        self.assertIn("pools", names)
        self.assertNotIn("study", names)  # a tuning job is another collection
        query = urllib.parse.urlencode({"filter": 'display_name="pools" AND '
                                                  'state=JOB_STATE_SUCCEEDED'})
        url = "%sv1/projects/%s/locations/%s/customJobs?%s" % (self.server.url, PROJECT, REGION,
                                                              query)
        with urllib.request.urlopen(url, timeout=30) as response:
            listed = json.load(response)["customJobs"]
        self.assertEqual([job["displayName"] for job in listed], ["pools"])

    def test_cancel_stops_a_running_job(self):
        job_id = self.create_custom("sleeper", "--config", self.write("sleeper.yaml", SLEEPER))
        self.wait(job_id, states=("JOB_STATE_RUNNING",))
        self.must("ai", "custom-jobs", "cancel", job_id, "--region", REGION)
        self.wait(job_id, states=("JOB_STATE_CANCELLED",))
        job = self.describe(job_id)
        self.assertEqual(job["state"], "JOB_STATE_CANCELLED")
        self.assertEqual(job["error"]["code"], 1, job)

    def test_a_study_runs_its_trials_to_completion(self):
        job_id = self.jobs["study"]
        self.wait(job_id, collection="hyperparameterTuningJobs")
        job = self.describe(job_id, kind="hp-tuning-jobs")
        self.assertEqual(job["state"], "JOB_STATE_SUCCEEDED", job)
        self.assertEqual(job["maxTrialCount"], 4)
        self.assertEqual([m["metricId"] for m in job["studySpec"]["metrics"]],
                         ["accuracy", "loss"], job)
        trials = job["trials"]
        self.assertEqual(sorted(t["id"] for t in trials), ["1", "2", "3"])
        points = set()
        for trial in trials:
            self.assertEqual(trial["state"], "SUCCEEDED", trial)
            values = {p["parameterId"]: p["value"] for p in trial["parameters"]}
            self.assertEqual(values["lr"], 0.004, trial)
            points.add((values["optimizer"], values.get("momentum")))
            measured = trial["finalMeasurement"]["metrics"]
            self.assertEqual([m["metricId"] for m in measured], ["accuracy", "loss"], trial)
            self.assertAlmostEqual(measured[0]["value"], 1 - abs(0.004 - 0.01), places=4)
            self.assertAlmostEqual(measured[1]["value"], abs(0.004 - 0.01), places=4)
        # Conditional parameters: momentum only where the optimizer is sgd, and the grid's
        # points that differ only in an inactive parameter are one trial.
        self.assertEqual(points, {("sgd", 0.5), ("sgd", 0.9), ("adam", None)})
        args = {text for task, text in self.log_lines(job_id, kind="hp-tuning-jobs")
                if text.startswith("ARGS ")}
        self.assertEqual(len(args), 3, args)
        for text in args:
            self.assertEqual("--optimizer=sgd" in text, "--momentum=" in text, text)
        dirs = {text for task, text in self.log_lines(job_id, kind="hp-tuning-jobs")
                if text.startswith("AIP_MODEL_DIR ")}
        self.assertEqual(dirs, {"AIP_MODEL_DIR gs://%s/study/%d/model/" % (BUCKET, trial)
                                for trial in (1, 2, 3)})

    def test_a_container_pool_writes_through_gcs(self):
        if not fixture_ready():
            required = os.environ.get("TRAINYARD_REQUIRE_CONTAINERS") == "1"
            if required:
                self.fail("the container_images fixture is missing (%r)" % STATE_DIR)
            self.skipTest("no container_images fixture")
        config = self.write("container.yaml", "\n".join([
            "workerPoolSpecs:",
            "  - machineSpec: {machineType: n1-standard-4}",
            "    replicaCount: 1",
            "    containerSpec:",
            "      imageUri: %s" % TRAINER_IMAGE,
            "      command: [python3, -c, %s]" % json.dumps(CONTAINER_SCRIPT),
        ]) + "\n")
        job_id = self.create_custom("container", "--config", config)
        job = self.wait(job_id)
        self.assertEqual(job["state"], "JOB_STATE_SUCCEEDED", job)
        run = self.must("storage", "cat", "gs://%s/from-container.txt" % BUCKET)
        self.assertEqual(json.loads(run.out)["task"]["type"], "workerpool0")

    def test_refusals_name_the_field(self):
        cases = [
            ("workerPoolSpecs:\n  - machineSpec: {machineType: n1-standard-4}\n"
             "    replicaCount: 2\n    containerSpec: {imageUri: x}\n",
             REGION, "jobSpec.workerPoolSpecs[0].replicaCount"),
            ("workerPoolSpecs:\n  - machineSpec: {machineType: n1-standard-4,"
             " acceleratorType: NVIDIA_TESLA_T4, acceleratorCount: 3}\n"
             "    replicaCount: 1\n    containerSpec: {imageUri: x}\n",
             REGION, "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorCount"),
            ("workerPoolSpecs:\n  - machineSpec: {machineType: n1-standard-4}\n"
             "    replicaCount: 1\n    containerSpec: {imageUri: x}\n",
             "africa-south1", "unknown region 'africa-south1'"),  # gcloud's, not trainyard's
        ]
        for index, (spec, region, expected) in enumerate(cases):
            run = self.gcloud("ai", "custom-jobs", "create", "--region", region,
                              "--display-name", "bad", "--config",
                              self.write("bad%d.yaml" % index, spec))
            self.assertNotEqual(run.rc, 0, run)
            self.assertIn(expected, run.err, run)


def main():
    def set_trainyard(path):
        global TRAINYARD
        TRAINYARD = path

    gcloud_env.main(__doc__, set_trainyard)


if __name__ == "__main__":
    main()
