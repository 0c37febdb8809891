#!/usr/bin/python3
"""examples/pytorch_ddp (a CNN on the 8x8 digits with DistributedDataParallel) through a real
`trainyard serve`, submitted with the `trainyard` CLI and the example's own config.yaml (a master
and two workers: three gloo ranks).

(a) The job succeeds and rank 0's metrics.json says a test accuracy of at least 0.9, with the
    model and the newest checkpoints in the job dir and every rank's progress in the job's logs.
(b) The kill-a-worker test (the seeds' maintenance-event advice): once a checkpoint exists and the
    workers are mid-training, worker 1's trainer process (the child of its `trainyard-replica`
    supervisor) is SIGKILLed. trainyard restarts it (the replicas endpoint counts the restart,
    the service log says so), the surviving ranks re-execute themselves, every rank resumes from
    the newest checkpoint (the logs and metrics.json's resumed_from say so), and the job succeeds
    with the same accuracy as (a).

ExampleLogicTest checks, without torch, how the example finds its place in the cluster (the
PyTorch variables, else TF_CONFIG) and which errors make a surviving rank re-execute itself.

Needs /usr/bin/python3 with torch and sklearn (python3-torch, python3-sklearn, which
scripts/setup.sh installs); fails without them.
Usage: examples_pytorch_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import unittest.mock
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "pytorch_ddp")
PYTHON = "/usr/bin/python3"
TRAINYARD = None  # set by main()
PROJECT = "p"
BUCKET = "e2e-ddp"
REGION = "us-central1"
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
JOB_DEADLINE_S = 240  # per job: a 2-core CI machine shared with other tests
POLL_S = 0.05
MIN_ACCURACY = 0.9
SAME_BAND = 0.03  # |accuracy after a kill - accuracy without| (in practice they are equal)
STEPS = 225  # the example's defaults: 15 epochs of 15 steps (1,437 images, 3 ranks, batch 32)
KEEP_CHECKPOINTS = 3
# A checkpoint every 10 steps: several before the kill, the newest at most 10 steps old.
KILL_ARGS = ("--checkpoint-every", "10")
KILLED_TASK, KILLED_RANK = "worker-replica-1", 2
TASKS = ("master-replica-0", "worker-replica-0", "worker-replica-1")
# One row of `trainyard jobs stream-logs`: severity, time, task, trial, message.
ROW = re.compile(r"^([A-Z]+)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")


def has_torch():
    """Whether the replicas' interpreter has torch and scikit-learn."""
    return subprocess.run([PYTHON, "-c", "import torch, sklearn"], capture_output=True,
                          check=False).returncode == 0


def http_json(url, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read().decode())


def parent_pid(pid):
    """The parent of process `pid` (from /proc/<pid>/stat), or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as f:
            stat = f.read()
    except FileNotFoundError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])  # after "pid (comm)": state, ppid


class PytorchDdpExampleTest(gcloud_env.ServerTestCase):
    maxDiff = None
    accuracy_without_kill = None  # set by test (a), compared by test (b)

    @classmethod
    def setUpClass(cls):
        if not has_torch():
            raise AssertionError("%s has no torch or sklearn: scripts/setup.sh installs "
                                 "python3-torch and python3-sklearn" % PYTHON)
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-pytorch-")
        cls.data = os.path.join(cls.tmp, "data")
        # A copy: the package is built (sdist) where it lies.
        cls.example = os.path.join(cls.tmp, "pytorch_ddp")
        shutil.copytree(EXAMPLE, cls.example,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build",
                                                      "dist"))
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, cls.data,
                                             extra_args=("--stop-grace", "5"))
        try:
            http_json("%sstorage/v1/b?project=%s" % (cls.server.url, PROJECT), "POST",
                      {"name": BUCKET})
        except Exception:
            cls.tearDownClass()
            raise

    # -- helpers ----------------------------------------------------------------------------

    def trainyard(self, *args):
        """`trainyard ARGS` against the server, its flags before the user args (after `--`)."""
        args = list(args)
        end = args.index("--") if "--" in args else len(args)
        args[end:end] = ["--server", self.server.url, "--project", PROJECT]
        proc = subprocess.run([TRAINYARD, *args], cwd=self.tmp, capture_output=True, text=True,
                              timeout=180, check=False)
        return gcloud_env.Run(proc)

    def submit(self, job_id, *trainer_args):
        """Submits the example with its config.yaml, as its README says."""
        run = self.trainyard("jobs", "submit", "training", job_id,
                             "--config", os.path.join(self.example, "config.yaml"),
                             "--region", REGION,
                             "--package-path", os.path.join(self.example, "ddp_digits"),
                             "--module-name", "ddp_digits.task",
                             "--staging-bucket", "gs://" + BUCKET,
                             "--job-dir", "gs://%s/%s" % (BUCKET, job_id),
                             "--", *trainer_args)
        self.assertEqual(run.rc, 0, run)
        self.assertIn("Job [%s] submitted successfully." % job_id, run.err)

    def job(self, job_id):
        return http_json("%sv1/projects/%s/jobs/%s" % (self.server.url, PROJECT, job_id))

    def replicas(self, job_id):
        """{task name: replica} from the replicas endpoint (empty once the job has ended)."""
        reply = http_json("%strainyard/v1/projects/%s/jobs/%s/replicas"
                          % (self.server.url, PROJECT, job_id))
        return {replica["taskName"]: replica for replica in reply.get("replicas", [])}

    def job_dir(self, job_id):
        """Where gs://BUCKET/<job_id> reaches the trainers: <data>/buckets/BUCKET/<job_id>."""
        return os.path.join(self.data, "buckets", BUCKET, job_id)

    def diagnostics(self, job_id):
        """The replicas' logs and the server's, for a failure message."""
        text = []
        logs = os.path.join(self.data, "jobs", PROJECT, job_id, "logs")
        for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
            with open(os.path.join(logs, name), encoding="utf-8", errors="replace") as f:
                text.append("--- %s\n%s" % (name, f.read()[-3000:]))
        return "\n".join(text) + "\n--- trainyard serve\n" + self.server.log()

    def wait_until(self, job_id, condition, what):
        """Polls until `condition()` is true; fails when the job ends first or time runs out."""
        deadline = time.monotonic() + JOB_DEADLINE_S
        while not condition():
            state = self.job(job_id)["state"]
            if state in TERMINAL or time.monotonic() > deadline:
                self.fail("job %s is %s, and still not %s\n%s"
                          % (job_id, state, what, self.diagnostics(job_id)))
            time.sleep(POLL_S)

    def wait_for_success(self, job_id, on_poll=None):
        """Polls the job until it ends (calling `on_poll()` each time); it must be SUCCEEDED."""
        deadline = time.monotonic() + JOB_DEADLINE_S
        while True:
            if on_poll:
                on_poll()
            job = self.job(job_id)
            if job["state"] in TERMINAL or time.monotonic() > deadline:
                break
            time.sleep(POLL_S)
        self.assertEqual(job["state"], "SUCCEEDED",
                         "%s\n%s" % (json.dumps(job, indent=2), self.diagnostics(job_id)))
        return job

    def metrics(self, job_id):
        with open(os.path.join(self.job_dir(job_id), "metrics.json"), encoding="utf-8") as f:
            return json.load(f)

    def read_pid(self, job_id, rank):
        """The pid the trainer of `rank` wrote in <job dir>/pids/<rank> when it started."""
        with open(os.path.join(self.job_dir(job_id), "pids", str(rank)), encoding="utf-8") as f:
            return int(f.read())

    def checkpoint_steps(self, job_id):
        directory = os.path.join(self.job_dir(job_id), "checkpoints")
        names = os.listdir(directory) if os.path.isdir(directory) else []
        return sorted(int(m.group(1)) for m in map(re.compile(r"^ckpt-(\d+)\.pt$").match, names)
                      if m)

    def log_rows(self, job_id):
        """{task: [message]} from `trainyard jobs stream-logs`."""
        run = self.trainyard("jobs", "stream-logs", job_id)
        self.assertEqual(run.rc, 0, run)
        rows = {}
        for line in run.out.splitlines():
            match = ROW.match(line)
            self.assertIsNotNone(match, "not a log row: %r" % line)
            rows.setdefault(match.group(3), []).append(match.group(5))
        return rows

    def assert_logged(self, rows, task, pattern):
        """Some message of `task` matches `pattern`; returns the first match."""
        for message in rows.get(task, []):
            match = re.search(pattern, message)
            if match:
                return match
        self.fail("no %s line matches %r:\n%s" % (task, pattern, "\n".join(rows.get(task, []))))

    def assert_quality(self, metrics):
        self.assertGreaterEqual(metrics["test_accuracy"], MIN_ACCURACY, metrics)
        self.assertEqual(metrics["steps"], STEPS, metrics)
        self.assertEqual(metrics["world_size"], 3, metrics)
        self.assertEqual(metrics["backend"], "gloo", metrics)

    # -- tests ------------------------------------------------------------------------------

    def test_a_the_example_reaches_digits_accuracy_0_9(self):
        job_id = "e2e_ddp"
        self.submit(job_id)
        self.wait_for_success(job_id)
        metrics = self.metrics(job_id)
        self.assert_quality(metrics)
        self.assertEqual(metrics["resumed_from"], 0, metrics)
        self.assertEqual(metrics["reexecs"], 0, metrics)
        type(self).accuracy_without_kill = metrics["test_accuracy"]

        self.assertGreater(os.path.getsize(os.path.join(self.job_dir(job_id), "model.pt")), 0)
        # A checkpoint every 50 steps (the default), the newest 3 kept, none at the end.
        self.assertEqual(self.checkpoint_steps(job_id), [100, 150, 200])
        rows = self.log_rows(job_id)
        final = self.assert_logged(rows, "master-replica-0",
                                   r"^INFO:ddp_digits:master 0: epoch 15/15 \(step 225\): "
                                   r"train loss [0-9.]+, test accuracy ([0-9.]+)$")
        self.assertAlmostEqual(float(final.group(1)), metrics["test_accuracy"], places=4)
        for rank, task in enumerate(TASKS[1:]):
            self.assert_logged(rows, task, r"^INFO:ddp_digits:worker %d: epoch 15/15 " % rank)

    def test_b_a_killed_worker_restarts_and_training_resumes(self):
        job_id = "e2e_ddp_kill"
        self.submit(job_id, *KILL_ARGS)
        job_dir = self.job_dir(job_id)
        pid_file = os.path.join(job_dir, "pids", str(KILLED_RANK))
        self.wait_until(job_id, lambda: os.path.exists(pid_file), "started by worker 1")
        pid = self.read_pid(job_id, KILLED_RANK)
        supervisor = self.replicas(job_id)[KILLED_TASK]["pid"]
        self.assertEqual(parent_pid(pid), supervisor,
                         "pid %d is not the child of %s's supervisor" % (pid, KILLED_TASK))

        # Mid-training: a checkpoint is there, the results are not.
        self.wait_until(job_id, lambda: self.checkpoint_steps(job_id), "checkpointed")
        self.assertFalse(os.path.exists(os.path.join(job_dir, "metrics.json")))
        newest_at_kill = self.checkpoint_steps(job_id)[-1]
        master_pid = self.read_pid(job_id, 0)
        os.kill(pid, signal.SIGKILL)

        restarts = {}

        def note_restarts():
            for task, replica in self.replicas(job_id).items():
                restarts[task] = max(restarts.get(task, 0), replica["restarts"])

        self.wait_for_success(job_id, on_poll=note_restarts)
        self.assertEqual(restarts, {"master-replica-0": 0, "worker-replica-0": 0,
                                    KILLED_TASK: 1})

        metrics = self.metrics(job_id)
        self.assert_quality(metrics)
        self.assertGreaterEqual(metrics["resumed_from"], newest_at_kill, metrics)
        self.assertLess(metrics["resumed_from"], STEPS, metrics)
        self.assertGreaterEqual(metrics["reexecs"], 1, metrics)  # the master survived the kill
        if self.accuracy_without_kill is not None:
            self.assertLessEqual(abs(metrics["test_accuracy"] - self.accuracy_without_kill),
                                 SAME_BAND, (metrics, self.accuracy_without_kill))

        rows = self.log_rows(job_id)
        self.assert_logged(rows, "service",
                           r"^The replica %s .*; restarting it in 1 s \(restart 1 of \d+\)\.$"
                           % KILLED_TASK)
        self.assert_logged(rows, "master-replica-0",
                           r"^WARNING:ddp_digits:master 0: re-executing \(1 of at most 5\)")
        resumed = r"^INFO:ddp_digits:%s: resumed from checkpoint step {} of {}$".format(
            metrics["resumed_from"], STEPS)
        self.assert_logged(rows, "master-replica-0", resumed % "master 0")
        self.assert_logged(rows, KILLED_TASK, resumed % "worker 1")
        # The restarted worker is a new process; the master re-executed itself in place.
        self.assertNotEqual(self.read_pid(job_id, KILLED_RANK), pid)
        self.assertEqual(self.read_pid(job_id, 0), master_pid)


class ExampleLogicTest(unittest.TestCase):
    """ddp_digits.cluster and ddp_digits.recovery (standard library only) on their own."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, EXAMPLE)
        sys.dont_write_bytecode = True  # no __pycache__ in the source tree
        from ddp_digits import cluster, recovery  # pylint: disable=import-outside-toplevel
        cls.cluster, cls.recovery = cluster, recovery

    def test_the_cluster_comes_from_the_pytorch_variables_else_tf_config(self):
        chief = {"chief": ["m:1"], "worker": ["w:2", "w:3"], "ps": ["p:4"]}
        master = {"master": ["m:1"], "worker": ["w:2"]}
        rows = [
            ("pytorch_variables", {"RANK": "2", "WORLD_SIZE": "3", "MASTER_ADDR": "h",
                                   "MASTER_PORT": "5", "TF_CONFIG": json.dumps(
                                       {"cluster": chief, "task": {"type": "ps"}})},
             (2, 3, "h", 5)),
            ("chief", {"TF_CONFIG": json.dumps({"cluster": chief,
                                                "task": {"type": "chief", "index": 0}})},
             (0, 3, "m", 1)),
            ("worker_1", {"TF_CONFIG": json.dumps({"cluster": chief,
                                                   "task": {"type": "worker", "index": 1}})},
             (2, 3, "m", 1)),
            ("master_runtime_1_15", {"TF_CONFIG": json.dumps(
                {"cluster": master, "task": {"type": "master", "index": 0}})},
             (0, 2, "m", 1)),
            ("parameter_server", {"TF_CONFIG": json.dumps(
                {"cluster": chief, "task": {"type": "ps", "index": 0}})}, None),
            ("evaluator", {"TF_CONFIG": json.dumps(
                {"cluster": chief, "task": {"type": "evaluator", "index": 0}})}, None),
            ("empty_variables_use_tf_config", {"RANK": "", "TF_CONFIG": json.dumps(
                {"cluster": master, "task": {"type": "worker", "index": 0}})}, (1, 2, "m", 1)),
            ("alone", {}, (0, 1, "127.0.0.1", 0)),
        ]
        for name, env, expected in rows:
            with self.subTest(name):
                found = self.cluster.from_environment(env)
                self.assertEqual(None if found is None else tuple(found), expected)

    def test_nccl_only_with_cuda_and_visible_devices(self):
        rows = [("cuda_and_devices", True, {"CUDA_VISIBLE_DEVICES": "0"}, True),
                ("cuda_all_devices", True, {}, True),
                ("emulated_accelerators", True, {"CUDA_VISIBLE_DEVICES": ""}, False),
                ("no_cuda", False, {"CUDA_VISIBLE_DEVICES": "0"}, False)]
        for name, available, env, expected in rows:
            with self.subTest(name):
                self.assertEqual(self.cluster.use_cuda(available, env), expected)

    def test_only_distributed_errors_make_a_rank_reexecute(self):
        rows = [
            ("gloo_reset", RuntimeError("[../third_party/gloo/gloo/transport/tcp/pair.cc:589] "
                                        "Read error [127.0.0.1]:42: Connection reset by peer"),
             True),
            ("peer_closed", RuntimeError("[pair.cc:598] Connection closed by peer [::1]:7"), True),
            ("store_timeout", RuntimeError("Socket Timeout"), True),
            ("shape_bug", RuntimeError("mat1 and mat2 shapes cannot be multiplied (32x512 and "
                                       "256x64)"), False),
            ("not_a_runtime_error", ValueError("Connection reset by peer"), False),
        ]
        for name, error, expected in rows:
            with self.subTest(name):
                self.assertEqual(self.recovery.is_distributed_error(error), expected)

    def test_reexecutions_are_bounded(self):
        error = RuntimeError("Connection closed by peer")
        limit = self.recovery.MAX_REEXECS
        for done, expected in ((None, True), (limit - 1, True), (limit, False)):
            env = {} if done is None else {self.recovery.REEXECS_VARIABLE: str(done)}
            with self.subTest(done=done), unittest.mock.patch.dict(os.environ, env):
                if done is None:
                    os.environ.pop(self.recovery.REEXECS_VARIABLE, None)
                self.assertEqual(self.recovery.may_reexec(error), expected)


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
