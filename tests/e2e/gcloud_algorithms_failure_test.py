#!/usr/bin/python3
"""A worker of a distributed XGBoost job that dies, or freezes, mid-training, through the real
gcloud and a real `trainyard serve`.

gcloud submits gcr.io/cloud-ml-algos/xgboost_dist twice at once (CUSTOM tier: a master and two
workers, and a master and one worker) with enough rounds to be still training when the test
signals worker 0's process, once the master has logged its first round (found on the host by its
command line, which names its job's output, and its CLUSTER_SPEC).

One job's worker 0 is SIGKILLed, as the kernel's OOM killer would end it. trainyard's restart
policy for an ml v1 job restarts a replica killed by a signal it did not send
(docs/ARCHITECTURE.md, "How a job runs"), but XGBoost 1.7's collective cannot take a replica back
into a training under way: the others' allreduce fails. The job must end FAILED, never hang,
with an errorMessage that names worker 0 as the replica the collective lost, and leave no model/
under its job dir.

The other job's worker 0 is SIGSTOPped instead: it breaks no socket, so only the other replicas'
watchdogs (python/trainyard_algorithms/liveness.py) can end the wait; the job must end FAILED
naming worker 0 as the replica that stopped answering, and leave no model/. The test SIGCONTs and
SIGKILLs the process it stopped at the end.

Needs Debian's python3-xgboost and python3-sklearn. Usage: gcloud_algorithms_failure_test.py
--trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_algorithms_test as algorithms  # noqa: E402  (needs the path above)
import gcloud_env  # noqa: E402

BUCKET = "algo-e2e-dies"
KILLED = "xgb_dist_dies"
FROZEN = "xgb_dist_freezes"


def replica_pids(marker, kind, index):
    """The host pids of the job's replica `kind` `index`: processes whose command line names
    `marker` and whose CLUSTER_SPEC's task is that replica."""
    found = []
    for pid, _ in gcloud_env.marked_processes(marker):
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                env = dict(item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item)
            task = json.loads(env.get(b"CLUSTER_SPEC", b"{}")).get("task", {})
        except (OSError, ValueError):
            continue
        if task.get("type") == kind and int(task.get("index", -1)) == index:
            found.append(pid)
    return found


class DistributedFailureTest(algorithms.AlgorithmsCase):

    def wait_for(self, what, predicate, job):
        deadline = time.monotonic() + algorithms.JOB_DEADLINE_S
        while not predicate():
            self.assertLess(time.monotonic(), deadline, "%s\n%s" % (what, self.job_log(job)))
            time.sleep(0.2)

    def put_data(self):
        csv = os.path.join(self.tmp, "data.csv")
        self.write_data(csv)
        with open(csv, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        self.gcloud("storage", "buckets", "create", "gs://" + BUCKET)
        for name, part in (("train.csv", lines[:400]), ("valid.csv", lines[400:])):
            with open(os.path.join(self.tmp, name), "w", encoding="utf-8") as f:
                f.writelines(part)
            self.gcloud("storage", "cp", os.path.join(self.tmp, name),
                        "gs://%s/%s" % (BUCKET, name))

    def submit(self, job, workers):
        """The job, its output under gs://BUCKET/<job> (which its replicas' command lines name)."""
        self.gcloud("ai-platform", "jobs", "submit", "training", job,
                    "--master-image-uri", "gcr.io/cloud-ml-algos/xgboost_dist:latest",
                    "--scale-tier", "CUSTOM", "--master-machine-type", "n1-standard-4",
                    "--worker-machine-type", "n1-standard-4", "--worker-count", str(workers),
                    "--region", "us-central1", "--job-dir", "gs://%s/%s" % (BUCKET, job),
                    "--", "--training_data_path=gs://%s/train.csv" % BUCKET,
                    "--validation_data_path=gs://%s/valid.csv" % BUCKET,
                    "--objective=binary:logistic", "--eval_metric=auc", "--num_round=100000",
                    "--eval_log_period=20", "--model_saving_period=100000")

    def worker_0(self, job):
        """Worker 0's host pid once the job's master has logged its first round."""
        self.wait_for("the master logs no round", lambda: "[0]\tvalidation-auc" in
                      self.job_log(job), job)
        marker = "/%s/%s" % (BUCKET, job)
        pids = replica_pids(marker, "worker", 0)
        self.assertEqual(len(pids), 1, gcloud_env.marked_processes(marker))
        return pids[0]

    def test_a_worker_killed_or_frozen_mid_training_fails_the_job_naming_it(self):
        """Both jobs at once (the test's time is the slower one's): worker 0 of one SIGKILLed,
        of the other SIGSTOPped. The frozen one breaks no socket, so only the other replicas'
        watchdogs end the wait, within liveness.BOUND_SECONDS (not asserted: a loaded machine
        stretches it)."""
        self.put_data()
        self.submit(KILLED, 2)
        self.submit(FROZEN, 1)
        killed, frozen = self.worker_0(KILLED), self.worker_0(FROZEN)
        os.kill(killed, signal.SIGKILL)
        os.kill(frozen, signal.SIGSTOP)
        self.addCleanup(self.end_frozen, frozen)
        for job, text in ((KILLED, "the collective lost worker 0"),
                          (FROZEN, "worker 0 stopped answering")):
            with self.subTest(job):
                state = self.wait(job)
                self.assertEqual(state["state"], "FAILED", "%s\n%s" % (
                    json.dumps(state, indent=2), self.job_log(job)))
                self.assertIn(text, state["errorMessage"])
                self.assertFalse(os.path.exists(os.path.join(self.data, "buckets", BUCKET, job,
                                                             "model")))

    @staticmethod
    def end_frozen(pid):
        """A stopped process takes only SIGKILL: the server's end of the job may not have been
        one, so the test ends what it stopped."""
        for sig in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return


if __name__ == "__main__":
    gcloud_env.main(__doc__, algorithms._set_trainyard)  # pylint: disable=protected-access
