"""Issue #34's preemption through the real gcloud, shared by tests/e2e/preemption_test.py (which
asserts) and bench/scheduling/preempt_run.py (which measures).

A `trainyard serve --accelerator-emulation 1` (one device of each type: one T4) with a private
gcloud configuration and a bucket; jobs are examples/trainers/checkpointing (a step counter that
checkpoints to its job dir) on 1 × T4, their priority (ml v1 `trainingInput.scheduling.priority`)
in a config.yaml, submitted with `gcloud ai-platform jobs submit training --package-path`.
"""

import datetime
import json
import os
import shutil
import subprocess
import tempfile

import gcloud_env

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TRAINER = os.path.join(REPO, "examples", "trainers", "checkpointing")
PROJECT = "p"
BUCKET = "preempt"
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
DEADLINE_S = 300  # per wait: a 2-core machine shared with other tests

CONFIG = """trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-4
  masterConfig:
    acceleratorConfig:
      count: 1
      type: NVIDIA_TESLA_T4
  scheduling:
    priority: %d
"""


class Scenario:
    """The server, gcloud's configuration and the trainer's copy (gcloud builds the sdist in
    place), under a temp dir. `close()` stops the server (SIGTERM) and removes the dir."""

    def __init__(self, trainyard, stop_grace_s=5):
        self.stop_grace_s = stop_grace_s
        self.trainyard_path = trainyard
        self.seen = {}  # job id -> the states wait_for_state saw, in order
        self.tmp = tempfile.mkdtemp(prefix="trainyard-preempt-")
        self.data = os.path.join(self.tmp, "data")
        shutil.copytree(TRAINER, os.path.join(self.tmp, "checkpointing"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build",
                                                      "dist"))
        self.package = os.path.join(self.tmp, "checkpointing", "trainer")
        self.server = gcloud_env.start_server(
            trainyard, self.tmp, self.data,
            extra_args=["--accelerator-emulation", "1", "--stop-grace", str(stop_grace_s)])
        self.env = gcloud_env.gcloud_environment(os.path.join(self.tmp, "gcloud"), PROJECT,
                                                 self.server.url, logging_url=self.server.url)
        self.env["TZ"] = "UTC"
        made = self.gcloud("storage", "buckets", "create", "gs://" + BUCKET)
        if made.rc != 0:
            self.close()
            raise AssertionError("cannot create gs://%s: %r" % (BUCKET, made))

    def close(self):
        try:
            self.server.stop_cleanly()
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def gcloud(self, *args):
        proc = subprocess.run([gcloud_env.GCLOUD, *args], env=self.env, cwd=self.tmp,
                              capture_output=True, text=True, timeout=180)
        return gcloud_env.Run(proc)

    def submit(self, job_id, priority, steps, step_s=0.1, every=5, labels=None,
               sigterm_checkpoint=True, pause_at=0):
        """Submits the checkpointing trainer on 1 × T4 at `priority`; gcloud's Run."""
        config = os.path.join(self.tmp, "%s.yaml" % job_id)
        with open(config, "w", encoding="utf-8") as f:
            f.write(CONFIG % priority)
        flags = ["--labels", ",".join("%s=%s" % kv for kv in labels.items())] if labels else []
        args = ["--steps", str(steps), "--step-seconds", str(step_s),
                "--checkpoint-every", str(every)]
        if not sigterm_checkpoint:
            args.append("--no-checkpoint-on-sigterm")
        if pause_at:
            args += ["--pause-at", str(pause_at)]
        return self.gcloud("ai-platform", "jobs", "submit", "training", job_id,
                           "--config", config, "--package-path", self.package,
                           "--module-name", "trainer.task", "--staging-bucket", "gs://" + BUCKET,
                           "--region", "us-central1", "--runtime-version", "2.11",
                           "--python-version", "3.7", "--job-dir",
                           "gs://%s/%s" % (BUCKET, job_id), *flags, "--", *args)

    def trainyard(self, *args):
        """The trainyard CLI on this server and project (`jobs suspend`, ...): its Run."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        proc = subprocess.run([self.trainyard_path, *args, "--server", self.server.url,
                               "--project", PROJECT], env=env, cwd=self.tmp,
                              capture_output=True, text=True, timeout=180)
        return gcloud_env.Run(proc)

    def describe(self, job_id):
        run = self.gcloud("ai-platform", "jobs", "describe", job_id, "--format", "json")
        if run.rc != 0:
            raise AssertionError("describe %s: %r" % (job_id, run))
        return json.loads(run.out)

    def wait(self, what, condition):
        """gcloud_env.wait_until with DEADLINE_S and this server's output."""
        return gcloud_env.wait_until(what, condition, DEADLINE_S, self.server.log)

    def wait_for_state(self, job_id, *states):
        """The job as described once its state is one of `states`; AssertionError if it ends
        otherwise. Every state seen is kept in `self.seen[job_id]`."""
        seen = self.seen.setdefault(job_id, [])

        def reached():
            job = self.describe(job_id)
            if not seen or seen[-1] != job["state"]:
                seen.append(job["state"])
            if job["state"] in states:
                return job
            if job["state"] in TERMINAL:
                raise AssertionError("job %s went through %s, not to %s: %s"
                                     % (job_id, seen, states, json.dumps(job)))
            return None
        return self.wait("job %s reaching %s" % (job_id, states), reached)

    # -- what the trainer wrote in its job dir ----------------------------------------------

    def job_file(self, job_id, name):
        return os.path.join(self.data, "buckets", BUCKET, job_id, name)

    def release(self, job_id):
        """Lets a trainer submitted with `pause_at` go on past that step."""
        with open(self.job_file(job_id, "release"), "w", encoding="utf-8"):
            pass

    def lines(self, job_id, name):
        """The JSON lines of starts.jsonl or stops.jsonl."""
        try:
            with open(self.job_file(job_id, name), encoding="utf-8") as f:
                return [json.loads(line) for line in f if line.strip()]
        except OSError:
            return []

    def progress(self, job_id):
        """The last step the trainer did (0 before its first)."""
        try:
            with open(self.job_file(job_id, "progress.json"), encoding="utf-8") as f:
                return json.load(f)["step"]
        except (OSError, ValueError):
            return 0


def unix_time(rfc3339):
    """createTime and friends as Unix time."""
    return datetime.datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp()
