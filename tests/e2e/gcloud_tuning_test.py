#!/usr/bin/python3
"""Hyperparameter-tuning studies submitted by the real gcloud (Cloud SDK 528) to `trainyard serve`.

Every study is a `gcloud ai-platform jobs submit training --config <hyperparameters>` job whose
trials trainyard runs (docs/reference/ai-platform-training.md §2.4, §9): the scikit-learn digits
example (examples/sklearn_digits, its hptuning_config.yaml cut to 4 trials, 2 at a time, Bayesian
search) and the probe trainer tests/e2e/trainers/hp_probe, which reports through trainyard's
`hypertune` module and writes what each trial was given into the job dir. Covers: parallel trials of
a Bayesian study to SUCCEEDED, every trial reported with its own outputs; a grid covered exactly
once, each trial with its flags, CLOUD_ML_TRIAL_ID, TF_CONFIG's task.trial and its own
CLOUD_ML_HP_METRIC_FILE; the median rule stopping the worst trial early; a failed trial reaching
maxFailedTrials; a resumed study continuing the numbering and skipping the points already tried, and
a resume of a job that does not exist refused; `stream-logs` rows carrying the trial ids; cancel of
a running study stopping every trial and its processes.

The independent studies are submitted together when the class starts, so they run at once; each
test then waits for its own. Job states are polled over HTTP (cheaper than gcloud on a 2-core
machine); what is asserted comes from `gcloud ai-platform jobs describe --format=json`.

Usage: gcloud_tuning_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import concurrent.futures
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DIGITS_DIR = os.path.join(REPO, "examples", "sklearn_digits")
PROBE_DIR = os.path.join(HERE, "trainers", "hp_probe")
PYTHON = "/usr/bin/python3"
GCLOUD = gcloud_env.GCLOUD
TRAINYARD = None  # set by main()
PROJECT = "p"
BUCKET = "e2e-tuning"
PROBE_URI = "gs://%s/packages/hp_probe-0.1.tar.gz" % BUCKET
RUNTIME = ["--region", "us-central1", "--runtime-version", "2.11", "--python-version", "3.7"]
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
JOB_DEADLINE_S = 240  # per job: a 2-core CI machine shared with other tests
COMMAND_TIMEOUT_S = 180
EARLY_STEPS = 20  # the early-stopping probe's reports, EARLY_INTERVAL_S apart
EARLY_INTERVAL_S = 0.3

# The probe studies: (job id, hyperparameters YAML, the probe's own args).
GRID = ("tune_grid", """
    algorithm: GRID_SEARCH
    goal: MAXIMIZE
    hyperparameterMetricTag: score
    maxTrials: 10
    maxParallelTrials: 3
    params:
      - {parameterName: a, type: INTEGER, minValue: 1, maxValue: 3}
      - {parameterName: b, type: CATEGORICAL, categoricalValues: ["x", "y"]}
""", ["--steps=1"])
# MINIMIZE over levels tried in grid order, one at a time: the fourth (10) is clearly the worst.
EARLY = ("tune_early", """
    algorithm: GRID_SEARCH
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: 4
    maxParallelTrials: 1
    enableTrialEarlyStopping: true
    params:
      - {parameterName: level, type: DISCRETE, discreteValues: [1, 2, 3, 10]}
""", ["--tag=loss", "--steps=%d" % EARLY_STEPS, "--interval=%g" % EARLY_INTERVAL_S])
FAILING = ("tune_fail", """
    algorithm: GRID_SEARCH
    goal: MAXIMIZE
    hyperparameterMetricTag: score
    maxTrials: 3
    maxParallelTrials: 1
    maxFailedTrials: 1
    params:
      - {parameterName: a, type: INTEGER, minValue: 1, maxValue: 3}
""", ["--fail-on=a=2"])
HOLDING = ("tune_cancel", """
    algorithm: RANDOM_SEARCH
    goal: MAXIMIZE
    hyperparameterMetricTag: score
    maxTrials: 4
    maxParallelTrials: 2
    params:
      - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}
""", ["--hold"])
# Resumes GRID over a grid one value of `a` wider.
RESUMED = ("tune_resume", """
    algorithm: GRID_SEARCH
    goal: MAXIMIZE
    hyperparameterMetricTag: score
    maxTrials: 10
    maxParallelTrials: 2
    resumePreviousJobId: tune_grid
    params:
      - {parameterName: a, type: INTEGER, minValue: 1, maxValue: 4}
      - {parameterName: b, type: CATEGORICAL, categoricalValues: ["x", "y"]}
""", ["--steps=1"])
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
DIGITS_JOB = "tune_digits"
DIGITS_TRIALS = 4


def config_text(hyperparameters):
    return ("trainingInput:\n  scaleTier: BASIC\n  hyperparameters:\n"
            + "\n".join("  " + line[2:] for line in hyperparameters.strip("\n").splitlines())
            + "\n")


def parse_time(text):
    """An RFC 3339 timestamp ("...Z", any number of fractional digits) as an aware datetime."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def seconds(trial):
    return (parse_time(trial["endTime"]) - parse_time(trial["startTime"])).total_seconds()


def job_dir_uri(job_id):
    """The job's --job-dir: beside gs://BUCKET/<job_id>/, where gcloud stages packages."""
    return "gs://%s/out/%s" % (BUCKET, job_id)


def process_alive(pid, marker):
    """Whether process `pid` exists and its command line contains `marker` (not a reused pid)."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return marker.encode() in f.read()
    except OSError:
        return False


class TuningTest(gcloud_env.ServerTestCase):
    """Studies through one `trainyard serve`, the independent ones submitted together."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        for module in ("sklearn", "numpy"):
            if subprocess.run([PYTHON, "-c", "import " + module], capture_output=True,
                              check=False).returncode != 0:
                raise AssertionError("%s cannot import %s (scripts/setup.sh installs it)"
                                     % (PYTHON, module))
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-tuning-")
        cls.data = os.path.join(cls.tmp, "data")
        # --stop-jobs-on-exit: no trial outlives the class (the holding study when its test is
        # left out or fails before its cancel).
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, cls.data,
                                             extra_args=("--stop-grace", "5",
                                                         "--stop-jobs-on-exit"))
        cls.env = gcloud_env.gcloud_environment(os.path.join(cls.tmp, "gcloud"), PROJECT,
                                                cls.server.url, logging_url=cls.server.url)
        cls.env["TZ"] = "UTC"
        cls.env["CLOUDSDK_ML_ENGINE_POLLING_INTERVAL"] = "1"
        cls.finished = {}
        cls.pool = concurrent.futures.ThreadPoolExecutor(max_workers=5)
        try:
            cls.prepare()
            cls.submissions = {
                DIGITS_JOB: cls.pool.submit(cls.submit_digits),
                **{study[0]: cls.pool.submit(cls.submit_probe, *study)
                   for study in (GRID, EARLY, FAILING, HOLDING)},
            }
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.pool.shutdown(wait=True)
        super().tearDownClass()

    @classmethod
    def prepare(cls):
        """The bucket, the probe's sdist uploaded to PROBE_URI, and a copy of the digits example
        (gcloud builds its sdist in place) with the study cut to DIGITS_TRIALS trials."""
        made = cls.gcloud("storage", "buckets", "create", "gs://" + BUCKET)
        if made.rc != 0:
            raise AssertionError("cannot create gs://%s: %r" % (BUCKET, made))
        ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist")
        probe = os.path.join(cls.tmp, "hp_probe")
        shutil.copytree(PROBE_DIR, probe, ignore=ignore)
        built = subprocess.run([PYTHON, "setup.py", "-q", "sdist", "--dist-dir", "dist"],
                               cwd=probe, capture_output=True, text=True, check=False)
        if built.returncode != 0:
            raise AssertionError("cannot build the probe's sdist: %r" % gcloud_env.Run(built))
        copied = cls.gcloud("storage", "cp", os.path.join(probe, "dist", "hp_probe-0.1.tar.gz"),
                            PROBE_URI)
        if copied.rc != 0:
            raise AssertionError("cannot upload the probe: %r" % copied)
        cls.digits = os.path.join(cls.tmp, "sklearn_digits")
        shutil.copytree(DIGITS_DIR, cls.digits, ignore=ignore)
        with open(os.path.join(DIGITS_DIR, "hptuning_config.yaml"), encoding="utf-8") as f:
            text = f.read()
        text, cut = re.subn(r"(?m)^(\s*maxTrials:) \d+$", r"\1 %d" % DIGITS_TRIALS, text)
        if cut != 1 or not re.search(r"(?m)^\s*maxParallelTrials: 2$", text):
            raise AssertionError("hptuning_config.yaml has no maxTrials or maxParallelTrials 2")
        with open(os.path.join(cls.tmp, "digits_hptuning.yaml"), "w", encoding="utf-8") as f:
            f.write(text)

    # -- helpers ----------------------------------------------------------------------------

    @classmethod
    def gcloud(cls, *args):
        proc = subprocess.run([GCLOUD, *args], env=cls.env, cwd=cls.tmp, capture_output=True,
                              text=True, timeout=COMMAND_TIMEOUT_S, check=False)
        return gcloud_env.Run(proc)

    @classmethod
    def submit_digits(cls):
        return cls.gcloud("ai-platform", "jobs", "submit", "training", DIGITS_JOB,
                          "--config", os.path.join(cls.tmp, "digits_hptuning.yaml"),
                          "--package-path", os.path.join(cls.digits, "digits_sklearn"),
                          "--module-name", "digits_sklearn.task",
                          "--staging-bucket", "gs://" + BUCKET, "--region", "us-central1",
                          "--job-dir", job_dir_uri(DIGITS_JOB))

    @classmethod
    def submit_probe(cls, job_id, hyperparameters, args):
        """Submits the probe (already uploaded) as `job_id` with the study `hyperparameters`."""
        config = os.path.join(cls.tmp, job_id + ".yaml")
        with open(config, "w", encoding="utf-8") as f:
            f.write(config_text(hyperparameters))
        return cls.gcloud("ai-platform", "jobs", "submit", "training", job_id,
                          "--config", config, "--packages", PROBE_URI,
                          "--module-name", "hp_probe.task", *RUNTIME,
                          "--job-dir", job_dir_uri(job_id), "--", *args)

    def ok(self, *args):
        run = self.gcloud(*args)
        self.assertEqual(run.rc, 0, run)
        return run

    def submitted(self, job_id, run=None):
        """The job's submission (the one started with the class, or `run`) succeeded."""
        run = run or self.submissions[job_id].result()
        self.assertEqual(run.rc, 0, run)
        self.assertIn("Job [%s] submitted successfully." % job_id, run.err)

    def get(self, job_id):
        """The job as projects.jobs.get returns it, over HTTP (never through a proxy)."""
        url = "%sv1/projects/%s/jobs/%s" % (self.server.url, PROJECT, job_id)
        with DIRECT.open(url, timeout=30) as response:
            return json.load(response)

    def describe(self, job_id):
        return json.loads(self.ok("ai-platform", "jobs", "describe", job_id, "--format",
                                  "json").out)

    def diagnostics(self, job_id):
        """The study's and its trials' logs, and the server's, for a failure message."""
        text = []
        logs = os.path.join(self.data, "jobs", PROJECT, job_id, "logs")
        for top, _, names in sorted(os.walk(logs)):
            for name in sorted(names):
                with open(os.path.join(top, name), encoding="utf-8", errors="replace") as f:
                    text.append("--- %s\n%s" % (os.path.relpath(os.path.join(top, name), logs),
                                                f.read()[-2000:]))
        return "\n".join(text) + "\n--- trainyard serve\n" + self.server.log()[-3000:]

    def poll(self, job_id, done, what):
        """Polls the job until `done(job)`; fails (with the logs) on a deadline or an end."""
        deadline = time.monotonic() + JOB_DEADLINE_S
        while True:
            job = self.get(job_id)
            if done(job):
                return job
            if job["state"] in TERMINAL or time.monotonic() > deadline:
                self.fail("job %s never %s:\n%s\n%s" % (job_id, what, json.dumps(job, indent=2),
                                                        self.diagnostics(job_id)))
            time.sleep(0.5)

    def final(self, job_id, state):
        """`describe` of the job once it has ended, which must be in `state` (cached)."""
        if job_id not in self.finished:
            self.poll(job_id, lambda job: job["state"] in TERMINAL, "ended")
            self.finished[job_id] = self.describe(job_id)
        job = self.finished[job_id]
        self.assertEqual(job["state"], state,
                         "%s\n%s" % (json.dumps(job, indent=2), self.diagnostics(job_id)))
        return job

    def local_dir(self, job_id, *parts):
        """Where the job dir (or a path under it) reaches the trainer."""
        return os.path.join(self.data, "buckets", job_dir_uri(job_id)[len("gs://"):], *parts)

    def seen(self, job_id, trial_id):
        """What the probe of a trial wrote in <job-dir>/<trial>/seen.json."""
        with open(self.local_dir(job_id, trial_id, "seen.json"), encoding="utf-8") as f:
            return json.load(f)

    def assert_tuning_output(self, job, tag, trials, completed):
        output = job["trainingOutput"]
        self.assertTrue(output.get("isHyperparameterTuningJob"), output)
        self.assertEqual(output.get("hyperparameterMetricTag"), tag)
        self.assertEqual(len(output["trials"]), trials, output)
        self.assertEqual(output.get("completedTrialCount"), str(completed))
        return output["trials"]

    def assert_best_first(self, trials, maximize):
        values = [t["finalMetric"]["objectiveValue"] for t in trials if "finalMetric" in t]
        self.assertEqual(values, sorted(values, reverse=maximize), trials)

    # -- the tests --------------------------------------------------------------------------

    def test_bayesian_digits_study_runs_parallel_trials(self):
        self.submitted(DIGITS_JOB)
        job = self.final(DIGITS_JOB, "SUCCEEDED")
        trials = self.assert_tuning_output(job, "accuracy", DIGITS_TRIALS, DIGITS_TRIALS)
        self.assertEqual(sorted(t["trialId"] for t in trials),
                         [str(n) for n in range(1, DIGITS_TRIALS + 1)])
        self.assert_best_first(trials, maximize=True)
        self.assertGreater(trials[0]["finalMetric"]["objectiveValue"], 0.9, trials[0])
        for trial in trials:
            with self.subTest(trial=trial["trialId"]):
                self.assertEqual(trial["state"], "SUCCEEDED")
                params = trial["hyperparameters"]
                self.assertEqual(sorted(params), ["C", "gamma", "kernel"])
                self.assertTrue(0.01 <= float(params["C"]) <= 100, params)
                self.assertTrue(1e-5 <= float(params["gamma"]) <= 0.1, params)
                self.assertIn(params["kernel"], ("rbf", "poly"))
                # The trial's own outputs: its flags reached the trainer, its report is final.
                with open(self.local_dir(DIGITS_JOB, trial["trialId"], "metrics.json"),
                          encoding="utf-8") as f:
                    metrics = json.load(f)
                self.assertEqual(metrics["params"]["C"], float(params["C"]))
                self.assertEqual(metrics["params"]["gamma"], float(params["gamma"]))
                self.assertEqual(metrics["params"]["kernel"], params["kernel"])
                # No global_step: step 0, which the proto3 JSON mapping leaves out.
                self.assertEqual(trial["finalMetric"], {"objectiveValue": metrics["accuracy"]})
                self.assertGreater(metrics["accuracy"], 0.0)
        # Two trials ran at once: one started before another had ended.
        spans = sorted((parse_time(t["startTime"]), parse_time(t["endTime"])) for t in trials)
        self.assertTrue(any(later[0] < earlier[1] for i, earlier in enumerate(spans)
                            for later in spans[i + 1:]), spans)
        # Each trial wrote to <job-dir>/<trial>/.
        uri = job_dir_uri(DIGITS_JOB)
        listed = self.ok("storage", "ls", uri + "/**").out.split()
        self.assertEqual(sorted(listed), sorted("%s/%d/%s" % (uri, n, name)
                                                for n in range(1, DIGITS_TRIALS + 1)
                                                for name in ("metrics.json", "model.pkl")))

    def test_grid_search_runs_every_point_once(self):
        job_id = GRID[0]
        self.submitted(job_id)
        job = self.final(job_id, "SUCCEEDED")
        trials = self.assert_tuning_output(job, "score", 6, 6)
        self.assertEqual(sorted((t["hyperparameters"]["a"], t["hyperparameters"]["b"])
                                for t in trials),
                         [(a, b) for a in ("1", "2", "3") for b in ("x", "y")])
        self.assertEqual(sorted(int(t["trialId"]) for t in trials), list(range(1, 7)))
        self.assert_best_first(trials, maximize=True)
        local = self.local_dir(job_id)
        hypertune = os.path.join(os.path.dirname(TRAINYARD), "python", "hypertune",
                                 "__init__.py")
        for trial in trials:
            trial_id = trial["trialId"]
            with self.subTest(trial=trial_id):
                params = trial["hyperparameters"]
                self.assertEqual(trial["state"], "SUCCEEDED")
                value = float(params["a"]) + (0.5 if params["b"] == "y" else 0) + 1
                self.assertEqual(trial["finalMetric"],
                                 {"trainingStep": "1", "objectiveValue": value})
                seen = self.seen(job_id, trial_id)
                self.assertEqual(seen["argv"], ["--steps=1", "--a=%s" % params["a"],
                                                "--b=%s" % params["b"], "--job-dir", local])
                self.assertEqual(seen["env"]["CLOUD_ML_TRIAL_ID"], trial_id)
                self.assertEqual(seen["env"]["CLOUD_ML_HP_METRIC_TAG"], "score")
                self.assertEqual(seen["tf_config_task"].get("trial"), trial_id)
                metric_file = seen["env"]["CLOUD_ML_HP_METRIC_FILE"]
                self.assertEqual(os.path.dirname(metric_file),
                                 os.path.join(self.data, "jobs", PROJECT, job_id,
                                              "trial-" + trial_id, "hypertune"))
                self.assertRegex(os.path.basename(metric_file), r"^[a-z]+[-a-z0-9]*\.metrics$")
                self.assertTrue(os.path.isfile(metric_file), metric_file)
                self.assertEqual(os.path.realpath(seen["hypertune"]),
                                 os.path.realpath(hypertune))

    def test_median_rule_stops_the_worst_trial_early(self):
        job_id = EARLY[0]
        self.submitted(job_id)
        job = self.final(job_id, "SUCCEEDED")
        trials = self.assert_tuning_output(job, "loss", 4, 4)
        self.assertEqual([t["hyperparameters"]["level"] for t in trials], ["1", "2", "3", "10"])
        self.assert_best_first(trials, maximize=False)
        full, stopped = trials[:3], trials[3]
        self.assertEqual(stopped["trialId"], "4")
        self.assertTrue(stopped.get("isTrialStoppedEarly"), stopped)
        self.assertEqual(stopped["state"], "SUCCEEDED")
        # Stopped after a few of its reports: it never finished, it was sent SIGTERM, and its
        # run was shorter than any full one.
        reports = stopped.get("allMetrics", [])
        self.assertGreaterEqual(len(reports), 2, stopped)
        self.assertLess(len(reports), EARLY_STEPS * 3 // 4, stopped)
        self.assertEqual(stopped["finalMetric"], reports[-1])
        self.assertFalse(os.path.exists(self.local_dir(job_id, "4", "done")))
        self.assertTrue(os.path.exists(self.local_dir(job_id, "4", "sigterm")))
        self.assertLess(seconds(stopped), min(seconds(t) for t in full), trials)
        for trial in full:
            with self.subTest(trial=trial["trialId"]):
                self.assertFalse(trial.get("isTrialStoppedEarly", False), trial)
                self.assertEqual(len(trial["allMetrics"]), EARLY_STEPS)
                level = float(trial["hyperparameters"]["level"])
                self.assertEqual(trial["finalMetric"],
                                 {"trainingStep": str(EARLY_STEPS),
                                  "objectiveValue": level + 1.0 / EARLY_STEPS})

    def test_failed_trial_counts_against_max_failed_trials(self):
        job_id = FAILING[0]
        self.submitted(job_id)
        job = self.final(job_id, "FAILED")
        trials = self.assert_tuning_output(job, "score", 2, 1)
        by_id = {t["trialId"]: t for t in trials}
        self.assertEqual(sorted(by_id), ["1", "2"])  # the third never started
        self.assertEqual(by_id["1"]["state"], "SUCCEEDED")
        self.assertEqual(by_id["1"]["hyperparameters"], {"a": "1"})
        self.assertEqual(by_id["2"]["state"], "FAILED")
        self.assertEqual(by_id["2"]["hyperparameters"], {"a": "2"})
        self.assertNotIn("finalMetric", by_id["2"])
        message = job.get("errorMessage", "")
        self.assertIn("maxFailedTrials (1)", message)
        self.assertIn("trial 2", message)
        self.assertIn("hp_probe: trial 2 fails on purpose: a=2", message)  # the trial's stderr

    def test_resumed_study_continues_the_numbering(self):
        self.submitted(GRID[0])
        self.final(GRID[0], "SUCCEEDED")
        job_id = RESUMED[0]
        self.submitted(job_id, self.submit_probe(*RESUMED))
        job = self.final(job_id, "SUCCEEDED")
        # The grid's six earlier points are prior observations: only a=4 is left to try.
        trials = self.assert_tuning_output(job, "score", 2, 2)
        self.assertEqual(sorted((t["trialId"], t["hyperparameters"]["b"]) for t in trials),
                         [("7", "x"), ("8", "y")])
        for trial in trials:
            self.assertEqual(trial["hyperparameters"]["a"], "4")
            self.assertEqual(self.seen(job_id, trial["trialId"])["env"]["CLOUD_ML_TRIAL_ID"],
                             trial["trialId"])

    def test_resume_of_a_job_that_does_not_exist_is_refused(self):
        job_id = "tune_resume_missing"
        run = self.submit_probe(job_id, RESUMED[1].replace("tune_grid", "no_such_study"),
                                RESUMED[2])
        self.assertEqual(run.rc, 1, run)
        self.assertNotIn("submitted successfully", run.err)
        self.assertIn("INVALID_ARGUMENT", run.err)
        self.assertIn("trainingInput.hyperparameters.resumePreviousJobId", run.err)
        self.assertIn("Job no_such_study does not exist in project %s." % PROJECT, run.err)
        self.assertEqual(self.ok("ai-platform", "jobs", "list", "--filter", "jobId=" + job_id,
                                 "--format", "value(jobId)").out.strip(), "")

    def test_stream_logs_rows_carry_the_trial_ids(self):
        job_id = GRID[0]
        self.submitted(job_id)
        best = self.final(job_id, "SUCCEEDED")["trainingOutput"]["trials"][0]
        run = self.ok("ai-platform", "jobs", "stream-logs", job_id, "--polling-interval=1")
        rows = [line.split("\t") for line in run.out.splitlines()]
        self.assertTrue(rows, run)
        for row in rows:
            self.assertEqual(len(row), 5, row)  # severity, time, task, trial, message
        started = {}
        for severity, _, task, trial, message in rows:
            match = re.match(r"hp_probe trial (\d+) ", message)
            if match:
                self.assertEqual(trial, match.group(1), message)
                self.assertEqual((severity, task), ("INFO", "master-replica-0"), message)
                if "started with" in message:
                    started[trial] = message
        self.assertEqual(sorted(started), [str(n) for n in range(1, 7)], run.out)
        # The service's messages about a trial carry its id; the study's own (which trial started
        # with which values, the best one) carry none.
        ended = {row[3] for row in rows if row[2] == "service"
                 and row[4].startswith("Trial completed successfully: score = ")}
        self.assertEqual(sorted(ended), [str(n) for n in range(1, 7)], run.out)
        study = [row[4] for row in rows if row[2] == "service" and row[3] == ""]
        for params in ("a=%d, b=%s" % (a, b) for a in (1, 2, 3) for b in "xy"):
            self.assertTrue(any(re.match(r"Trial \d+ started with %s\.$" % params, message)
                                for message in study), (params, run.out))
        self.assertIn("Job completed successfully. The best trial is %s: score = 4.5 (a=3, b=y)."
                      % best["trialId"], study)

    def test_cancel_stops_every_running_trial(self):
        job_id = HOLDING[0]
        self.submitted(job_id)

        def holding(job):  # both parallel trials run and their probes have reported
            trials = job.get("trainingOutput", {}).get("trials", [])
            return len(trials) == 2 and all(
                t["state"] == "RUNNING"
                and os.path.exists(self.local_dir(job_id, t["trialId"], "done"))
                for t in trials)

        self.poll(job_id, holding, "ran two trials at once")
        pids = [self.seen(job_id, trial)["pid"] for trial in ("1", "2")]
        for pid in pids:
            self.assertTrue(process_alive(pid, "hp_probe"), pid)
        self.ok("ai-platform", "jobs", "cancel", job_id)
        job = self.final(job_id, "CANCELLED")
        trials = job["trainingOutput"]["trials"]
        self.assertEqual(sorted(t["trialId"] for t in trials), ["1", "2"], trials)
        for trial in trials:
            with self.subTest(trial=trial["trialId"]):
                self.assertEqual(trial["state"], "CANCELLED")
                self.assertIn("endTime", trial)
                self.assertTrue(os.path.exists(self.local_dir(job_id, trial["trialId"],
                                                              "sigterm")))
        for pid in pids:
            self.assertFalse(process_alive(pid, "hp_probe"), pid)


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
