#!/usr/bin/python3
"""The scikit-learn and XGBoost example trainers run to SUCCEEDED through a real `trainyard serve`.

examples/sklearn_digits (an SVC on scikit-learn's bundled digits) and examples/xgboost_tabular (an
XGBoost classifier on the bundled breast-cancer data) are submitted as a user would: with the
`trainyard` command line, each with its own config.yaml and `--package-path` pointing into
examples/, and the digits example once more with the real gcloud (`ai-platform jobs submit
training --config`). Each job must end SUCCEEDED; the metrics.json it wrote under its job dir must
show the quality the README promises (accuracy >= 0.9), and the model it saved must load and
classify. Each trainer module is also run directly as a tuning trial (CLOUD_ML_HP_METRIC_FILE and
CLOUD_ML_TRIAL_ID set, trainyard's `hypertune` module from beside the binary on PYTHONPATH, as
trainyard gives it to trial replicas): its outputs go to <job-dir>/<trial>/ and the metric file
(docs/reference/ai-platform-training.md §9.2) holds one JSON object a line, keys sorted, values as
strings; and outside tuning without that module, as `gcloud ai-platform local train` runs it. Whole
studies of the digits example run in gcloud_tuning_test.py.

The trainers need Debian's python3-sklearn and python3-xgboost (scripts/setup.sh installs them): the
test fails, not skips, without them.

Usage: examples_sklearn_xgboost_test.py --trainyard PATH [unittest args]. Ends with "N passed, M
failed".
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(REPO, "examples")
PYTHON = "/usr/bin/python3"
GCLOUD = gcloud_env.GCLOUD
TRAINYARD = None  # set by main()
PROJECT = "p"
BUCKET = "e2e-examples"
REGION = ["--region", "us-central1"]
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
JOB_DEADLINE_S = 300  # per job: a 2-core CI machine shared with other tests
COMMAND_TIMEOUT_S = 180
MIN_ACCURACY = 0.9
# What the examples import, and the Debian package that carries it.
REQUIRED_MODULES = {"numpy": "python3-numpy", "sklearn": "python3-sklearn",
                    "xgboost": "python3-xgboost"}
# The example directories, their packages and what their models must reach.
DIGITS = {"dir": "sklearn_digits", "package": "digits_sklearn", "model": "model.pkl",
          "metrics": ("accuracy",)}
XGBOOST = {"dir": "xgboost_tabular", "package": "xgboost_tabular", "model": "model.json",
           "metrics": ("accuracy", "auc", "logloss")}
# Loads a saved model and prints its accuracy on the whole data set (argv[1]: the model file).
SCORE_DIGITS = """import pickle, sys
from sklearn.datasets import load_digits
with open(sys.argv[1], "rb") as f:
    model = pickle.load(f)
print(model.score(*load_digits(return_X_y=True)))
"""
SCORE_XGBOOST = """import sys
import xgboost as xgb
from sklearn.datasets import load_breast_cancer
x, y = load_breast_cancer(return_X_y=True)
booster = xgb.Booster(model_file=sys.argv[1])
print(float(((booster.predict(xgb.DMatrix(x)) > 0.5) == y).mean()))
"""


def missing_modules():
    """The REQUIRED_MODULES that PYTHON cannot import."""
    missing = []
    for module in REQUIRED_MODULES:
        proc = subprocess.run([PYTHON, "-c", "import " + module], capture_output=True,
                              text=True, check=False)
        if proc.returncode != 0:
            missing.append(module)
    return missing


def package_path(example):
    return os.path.join(EXAMPLES, example["dir"], example["package"])


def config_path(example):
    return os.path.join(EXAMPLES, example["dir"], "config.yaml")


def job_dir_uri(job_id):
    """The job's --job-dir (beside, not under, gs://BUCKET/<job_id>/ where packages are staged)."""
    return "gs://%s/output/%s" % (BUCKET, job_id)


def tree_files(root):
    """Every file under `root`, relative to it (to see what a submission left behind)."""
    return {os.path.relpath(os.path.join(top, name), root)
            for top, _, names in os.walk(root) for name in names}


def trainer_environment(**extra):
    """This process's environment without any job or tuning variable, plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLOUD_ML_", "TF_CONFIG", "CLUSTER_SPEC", "TRAINYARD_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave no __pycache__ in examples/
    env.update(extra)
    return env


class ExamplesTest(gcloud_env.ServerTestCase):
    """Both examples through one `trainyard serve`, with `trainyard` and with gcloud."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        missing = missing_modules()
        if missing:
            raise AssertionError(
                "%s cannot import %s: the example trainers need %s, which scripts/setup.sh "
                "installs" % (PYTHON, ", ".join(missing),
                              ", ".join(REQUIRED_MODULES[m] for m in missing)))
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-examples-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, cls.data,
                                             extra_args=("--stop-grace", "5"))
        try:
            cls.create_bucket()
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def create_bucket(cls):
        """gs://BUCKET through the storage API (storage.buckets.insert), without gcloud."""
        request = urllib.request.Request(
            "%sstorage/v1/b?project=%s" % (cls.server.url, PROJECT),
            data=json.dumps({"name": BUCKET}).encode(),
            headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            if response.status != 200:
                raise AssertionError("cannot create gs://%s: HTTP %d" % (BUCKET, response.status))

    # -- helpers ----------------------------------------------------------------------------

    def run_command(self, argv, env=None):
        proc = subprocess.run(argv, env=env, cwd=self.tmp, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S, check=False)
        return gcloud_env.Run(proc)

    def trainyard(self, *args):
        """`trainyard ARGS` against the server, its flags before the user args (after `--`)."""
        args = list(args)
        end = args.index("--") if "--" in args else len(args)
        args[end:end] = ["--server", self.server.url, "--project", PROJECT]
        run = self.run_command([TRAINYARD, *args])
        self.assertEqual(run.rc, 0, run)
        return run

    def gcloud(self, *args):
        run = self.run_command([GCLOUD, *args], env=self.gcloud_env())
        self.assertEqual(run.rc, 0, run)
        return run

    def gcloud_env(self):
        return gcloud_env.gcloud_environment(os.path.join(self.tmp, "gcloud"), PROJECT,
                                             self.server.url)

    def submit_with_trainyard(self, job_id, example, *args):
        """Submits `example` with its config.yaml and `--package-path` into examples/, as its
        README says; the sdist build must leave nothing behind there."""
        root = os.path.join(EXAMPLES, example["dir"])
        before = tree_files(root)
        run = self.trainyard("jobs", "submit", "training", job_id,
                             "--config", config_path(example),
                             "--package-path", package_path(example),
                             "--module-name", example["package"] + ".task",
                             "--staging-bucket", "gs://" + BUCKET, *REGION,
                             "--job-dir", job_dir_uri(job_id), "--", *args)
        self.assertIn("Job [%s] submitted successfully." % job_id, run.out + run.err)
        self.assertEqual(tree_files(root) - before, set(), "left in examples/ by the build")

    def describe(self, job_id):
        return json.loads(self.trainyard("jobs", "describe", job_id, "--format", "json").out)

    def diagnostics(self, job_id):
        """The job's logs and the server's, for a failure message."""
        text = []
        logs = os.path.join(self.data, "jobs", PROJECT, job_id, "logs")
        for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
            with open(os.path.join(logs, name), encoding="utf-8", errors="replace") as f:
                text.append("--- %s\n%s" % (name, f.read()[-3000:]))
        return "\n".join(text) + "\n--- trainyard serve\n" + self.server.log()[-3000:]

    def wait_for_success(self, job_id):
        """Polls `describe` until the job is over; fails unless it SUCCEEDED."""
        deadline = time.monotonic() + JOB_DEADLINE_S
        while True:
            job = self.describe(job_id)
            if job["state"] in TERMINAL or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertEqual(job["state"], "SUCCEEDED",
                         "%s\n%s" % (json.dumps(job, indent=2), self.diagnostics(job_id)))
        return job

    def job_dir(self, job_id):
        """Where job_dir_uri(job_id) reaches the trainer: a directory under <data>/buckets."""
        return os.path.join(self.data, "buckets", job_dir_uri(job_id)[len("gs://"):])

    def read_metrics(self, directory):
        with open(os.path.join(directory, "metrics.json"), encoding="utf-8") as f:
            return json.load(f)

    def assert_quality(self, metrics, example):
        """metrics.json has every metric of `example` as a number, accuracy >= MIN_ACCURACY."""
        for name in example["metrics"]:
            self.assertIsInstance(metrics.get(name), float, (name, metrics))
        self.assertGreaterEqual(metrics["accuracy"], MIN_ACCURACY, metrics)
        self.assertLessEqual(metrics["accuracy"], 1.0, metrics)
        if "auc" in metrics:
            self.assertGreaterEqual(metrics["auc"], MIN_ACCURACY, metrics)

    def assert_model_classifies(self, model_file, script):
        """`script` loads the saved model and prints its accuracy on the whole data set."""
        run = self.run_command([PYTHON, "-c", script, model_file], env=trainer_environment())
        self.assertEqual(run.rc, 0, run)
        self.assertGreaterEqual(float(run.out.strip()), MIN_ACCURACY, run)

    def run_trial(self, example, trial, *args):
        """Runs the trainer module straight from examples/ as tuning trial `trial`, with
        trainyard's hypertune module; returns (its job dir, the metric file's lines parsed, the
        trainer's output)."""
        job_dir = os.path.join(self.tmp, "trials", example["dir"])
        metric_file = os.path.join(self.tmp, "metrics", example["dir"], "master.metrics")
        shipped = os.path.join(os.path.dirname(TRAINYARD), "python")
        env = trainer_environment(
            PYTHONPATH=os.pathsep.join([os.path.join(EXAMPLES, example["dir"]), shipped]),
            CLOUD_ML_HP_METRIC_FILE=metric_file, CLOUD_ML_TRIAL_ID=str(trial))
        run = self.run_command([PYTHON, "-m", example["package"] + ".task", *args,
                                "--job-dir", job_dir], env=env)
        self.assertEqual(run.rc, 0, run)
        with open(metric_file, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for line in lines:  # one object a line, keys sorted as the library writes them
            self.assertEqual(line, json.dumps(json.loads(line), sort_keys=True))
        return job_dir, [json.loads(line) for line in lines], run

    def assert_metric_entry(self, entry, tag, value, trial, step):
        """One line of the metric file: the tag's value, global_step and trial as strings, an
        epoch timestamp as a number, and the library's (empty) checkpoint_path."""
        self.assertEqual(sorted(entry),
                         sorted([tag, "checkpoint_path", "global_step", "timestamp", "trial"]))
        self.assertEqual(entry["checkpoint_path"], "")
        self.assertEqual(entry[tag], str(float(value)))
        self.assertEqual(entry["global_step"], step)
        self.assertEqual(entry["trial"], str(trial))
        self.assertIsInstance(entry["timestamp"], float)
        self.assertGreater(entry["timestamp"], 1.5e9)

    # -- jobs through trainyard serve -------------------------------------------------------

    def test_digits_example_submitted_with_trainyard_reaches_its_accuracy(self):
        job_id = "e2e_examples_digits"
        self.submit_with_trainyard(job_id, DIGITS)
        job = self.wait_for_success(job_id)
        # BASIC is ScaleTier's zero value, which the proto3 JSON mapping leaves out.
        self.assertEqual(job["trainingInput"].get("scaleTier", "BASIC"), "BASIC")
        self.assertEqual(job["trainingInput"]["runtimeVersion"], "2.11")
        self.assertEqual(job["trainingInput"]["pythonVersion"], "3.7")
        job_dir = self.job_dir(job_id)
        self.assertEqual(sorted(os.listdir(job_dir)), ["metrics.json", "model.pkl"])
        metrics = self.read_metrics(job_dir)
        self.assert_quality(metrics, DIGITS)
        self.assertEqual(metrics["params"]["C"], 10.0)  # the trainer's defaults
        self.assert_model_classifies(os.path.join(job_dir, "model.pkl"), SCORE_DIGITS)
        # The replica's output reaches the job's logs; a job that is not a tuning job gets no
        # CLOUD_ML_HP_METRIC_FILE (docs/reference/ai-platform-training.md §7.4), so the trainer
        # reports nothing.
        logs = self.trainyard("jobs", "stream-logs", job_id).out
        self.assertIn("test accuracy %.4f" % metrics["accuracy"], logs)
        self.assertIn("not a tuning trial: no hypertune metric reported", logs)

    def test_xgboost_example_submitted_with_trainyard_reaches_its_accuracy(self):
        job_id = "e2e_examples_xgboost"
        self.submit_with_trainyard(job_id, XGBOOST, "--max_depth", "4", "--eta", "0.2",
                                   "--num_round", "60")
        self.wait_for_success(job_id)
        job_dir = self.job_dir(job_id)
        self.assertEqual(sorted(os.listdir(job_dir)), ["metrics.json", "model.json"])
        metrics = self.read_metrics(job_dir)
        self.assert_quality(metrics, XGBOOST)
        self.assertLess(metrics["logloss"], 0.3, metrics)
        self.assertEqual(metrics["params"]["max_depth"], 4)  # the job's args reached it
        self.assertEqual(metrics["params"]["eta"], 0.2)
        self.assertEqual(metrics["params"]["num_round"], 60)
        with open(os.path.join(job_dir, "model.json"), encoding="utf-8") as f:
            model = json.load(f)
        self.assertEqual(model["learner"]["gradient_booster"]["model"]["gbtree_model_param"]
                         ["num_trees"], "60")
        self.assert_model_classifies(os.path.join(job_dir, "model.json"), SCORE_XGBOOST)

    def test_digits_example_submitted_with_gcloud_reaches_its_accuracy(self):
        if not os.path.exists(GCLOUD):
            self.skipTest("gcloud is not installed")
        job_id = "e2e_examples_digits_gcloud"
        # gcloud builds the sdist in the package's parent directory: build it from a copy.
        copy = os.path.join(self.tmp, "gcloud-src", DIGITS["dir"])
        shutil.copytree(os.path.join(EXAMPLES, DIGITS["dir"]), copy,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build",
                                                      "dist"))
        run = self.gcloud("ai-platform", "jobs", "submit", "training", job_id,
                          "--config", config_path(DIGITS),
                          "--package-path", os.path.join(copy, DIGITS["package"]),
                          "--module-name", DIGITS["package"] + ".task",
                          "--staging-bucket", "gs://" + BUCKET, *REGION,
                          "--job-dir", job_dir_uri(job_id),
                          "--", "--C=5", "--gamma=0.0005")
        self.assertIn("Job [%s] submitted successfully." % job_id, run.err)
        self.wait_for_success(job_id)
        state = self.gcloud("ai-platform", "jobs", "describe", job_id, "--format",
                            "value(state)").out.strip()
        self.assertEqual(state, "SUCCEEDED")
        uri = job_dir_uri(job_id)
        self.assertEqual(self.gcloud("storage", "ls", uri + "/").out.split(),
                         [uri + "/metrics.json", uri + "/model.pkl"])
        metrics = json.loads(self.gcloud("storage", "cat", uri + "/metrics.json").out)
        self.assert_quality(metrics, DIGITS)
        self.assertEqual((metrics["params"]["C"], metrics["params"]["gamma"]), (5.0, 0.0005))

    # -- the hypertune metric file, written by the trainers themselves ----------------------

    def test_digits_trial_writes_the_hypertune_metric_file(self):
        job_dir, entries, run = self.run_trial(DIGITS, 4, "--C=5", "--gamma=0.0005")
        metrics = self.read_metrics(os.path.join(job_dir, "4"))  # a trial writes <job-dir>/<trial>
        self.assertTrue(os.path.isfile(os.path.join(job_dir, "4", "model.pkl")))
        self.assert_quality(metrics, DIGITS)
        self.assertEqual(len(entries), 1, entries)
        self.assert_metric_entry(entries[0], "accuracy", metrics["accuracy"], 4, "0")
        self.assertIn("reported accuracy=%.4f for trial 4" % metrics["accuracy"], run.out)

    def test_digits_trainer_runs_outside_tuning_without_hypertune(self):
        """`python -m digits_sklearn.task` with no tuning variable (gcloud ai-platform local
        train, or a job that is not a study) never imports hypertune, which may be missing there:
        a `hypertune` that cannot be imported is first on the path. It writes its outputs to the
        job dir itself and reports nothing."""
        job_dir = os.path.join(self.tmp, "local", DIGITS["dir"])
        broken = os.path.join(self.tmp, "no-hypertune")
        os.makedirs(broken, exist_ok=True)
        with open(os.path.join(broken, "hypertune.py"), "w", encoding="utf-8") as f:
            f.write("raise ImportError('hypertune is not installed here')\n")
        env = trainer_environment(
            PYTHONPATH=os.pathsep.join([broken, os.path.join(EXAMPLES, DIGITS["dir"])]))
        run = self.run_command([PYTHON, "-m", DIGITS["package"] + ".task", "--job-dir", job_dir],
                               env=env)
        self.assertEqual(run.rc, 0, run)
        self.assertEqual(sorted(os.listdir(job_dir)), ["metrics.json", "model.pkl"])
        self.assert_quality(self.read_metrics(job_dir), DIGITS)
        self.assertIn("not a tuning trial: no hypertune metric reported", run.out)

    def test_xgboost_trial_writes_one_metric_file_entry_per_metric(self):
        job_dir, entries, _ = self.run_trial(XGBOOST, 2, "--max_depth=3", "--eta=0.1",
                                             "--num_round=50")
        metrics = self.read_metrics(os.path.join(job_dir, "2"))
        self.assertTrue(os.path.isfile(os.path.join(job_dir, "2", "model.json")))
        self.assert_quality(metrics, XGBOOST)
        self.assertEqual(len(entries), 3, entries)
        for entry, tag in zip(entries, ("accuracy", "auc", "logloss")):
            self.assert_metric_entry(entry, tag, metrics[tag], 2, "50")
        stamps = [entry["timestamp"] for entry in entries]
        self.assertEqual(stamps, sorted(stamps))


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
