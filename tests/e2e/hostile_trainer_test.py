#!/usr/bin/python3
"""A hostile trainer (issue #31): `trainyard serve --run-as trainyard-job --containers host`, whose
jobs run a Python script on the host as the job user and attack the server from there.

Where the server and the root supervisor write as root (a job's root, run/ and logs/), the job
may read but not create entries: planting a link to a root-owned 0600 file at
run/replicas.json.tmp, run/<task>.exit(.tmp), logs/<task>.log or logs/service.log, or renaming
run/ away, is refused with EACCES, and after the trainer kills itself (so that the supervisor and
the server write those files) the root file is as it was. Where the job may write (its metrics
file), the server reads without following a link: a trial whose metrics file is a link to a
root file that looks like metrics reports none of its values.

Usage: hostile_trainer_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

TRAINYARD = None  # set by main()
JOB_USER = gcloud_env.JOB_USER
PROJECT = "p"
# What the root-owned file holds: a line the hypertune library could have written, with a value
# no trial reports, so that reading it through a link would show in the study's output.
CANARY_TEXT = ('{"accuracy": "0.123456", "checkpoint_path": "", "global_step": "1", '
               '"timestamp": 1, "trial": "1"}\n')
# Plants links to the canary (argv[1]) where the server writes in the job's tree (argv[2]),
# prints what happened to each attempt, then kills itself.
ATTACK_LINKS = r'''
import errno, os, signal, sys
canary, job, task = sys.argv[1], sys.argv[2], sys.argv[3]
def attempt(name, action):
    try:
        action()
        print("attempt %s: done" % name, flush=True)
    except OSError as e:
        print("attempt %s: %s" % (name, errno.errorcode.get(e.errno, e.errno)), flush=True)
def plant(target):
    # A link made where the job may write (its working directory), then moved over the target:
    # what replaces an existing file as well as a missing one.
    link = "link-%d-%d" % (os.getpid(), len(os.listdir(".")))
    os.symlink(canary, link)
    os.replace(link, target)
run, logs = os.path.join(job, "run"), os.path.join(job, "logs")
attempt("run-record-temporary", lambda: plant(os.path.join(run, "replicas.json.tmp")))
attempt("run-record", lambda: plant(os.path.join(run, "replicas.json")))
attempt("exit-temporary", lambda: plant(os.path.join(run, task + ".exit.tmp")))
attempt("exit-file", lambda: plant(os.path.join(run, task + ".exit")))
attempt("log", lambda: plant(os.path.join(logs, task + ".log")))
attempt("service-log", lambda: plant(os.path.join(logs, "service.log")))
attempt("token", lambda: plant(os.path.join(job, "job.token")))
attempt("move-run-away", lambda: os.rename(run, os.path.join(job, "run.old")))
attempt("move-job-away", lambda: os.rename(job, job + ".old"))
os.kill(os.getpid(), signal.SIGKILL)
'''
# Replaces its metrics file with a link to the canary, then ends well.
ATTACK_METRICS = r'''
import os, sys
path = os.environ["CLOUD_ML_HP_METRIC_FILE"]
os.makedirs(os.path.dirname(path), exist_ok=True)
os.symlink(sys.argv[1], path)
print("planted " + path, flush=True)
'''
ATTEMPTS = ["run-record-temporary", "run-record", "exit-temporary", "exit-file", "log",
            "service-log", "token", "move-run-away", "move-job-away"]


class HostileTrainerTest(gcloud_env.ServerTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.user, cls.tmp = gcloud_env.run_as_setup("trainyard-e2e-hostile-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.canary = os.path.join(cls.tmp, "root-only")
        with open(cls.canary, "w", encoding="utf-8") as f:
            f.write(CANARY_TEXT)
        os.chmod(cls.canary, 0o600)
        cls.server = gcloud_env.start_server(
            TRAINYARD, cls.tmp, cls.data,
            extra_args=["--run-as", JOB_USER, "--containers", "host", "--stop-grace", "2"])

    def setUp(self):
        self.assertCanaryUntouched()

    def tearDown(self):
        self.assertCanaryUntouched()

    def assertCanaryUntouched(self):
        st = os.lstat(self.canary)
        self.assertEqual((st.st_uid, st.st_mode & 0o7777), (0, 0o600))
        with open(self.canary, encoding="utf-8") as f:
            self.assertEqual(f.read(), CANARY_TEXT, "the root-owned file was overwritten")

    def call(self, method, path, body=None):
        request = urllib.request.Request(
            self.server.url + path.lstrip("/"), method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.loads(reply.read())

    def submit(self, job_id, script, args, extra=None):
        body = {"jobId": job_id, "trainingInput": {
            "region": "us-central1",
            "masterConfig": {"imageUri": "hostile/local",
                             "containerCommand": ["/usr/bin/python3", "-c", script],
                             "containerArgs": list(args)}}}
        body["trainingInput"].update(extra or {})
        self.call("POST", "/v1/projects/%s/jobs" % PROJECT, body)

    def wait_for_end(self, job_id, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            job = self.call("GET", "/v1/projects/%s/jobs/%s" % (PROJECT, job_id))
            if job["state"] in ("SUCCEEDED", "FAILED", "CANCELLED"):
                return job
            time.sleep(0.2)
        self.fail("job %s did not end within %d s" % (job_id, timeout))

    def served_log(self, job_id):
        """The job's log lines as the logging API serves them."""
        entries = self.call("POST", "/v2/entries:list", {
            "resourceNames": ["projects/" + PROJECT],
            "filter": 'resource.labels.job_id="%s"' % job_id, "pageSize": 1000})
        return [e.get("textPayload", "") for e in entries.get("entries", [])]

    def test_links_where_the_server_writes_as_root_cannot_be_planted(self):
        job_id = "hostile_links"
        job_root = os.path.join(self.data, "jobs", PROJECT, job_id)
        self.submit(job_id, ATTACK_LINKS, [self.canary, job_root, "master-replica-0"])
        job = self.wait_for_end(job_id)
        self.assertEqual(job["state"], "FAILED", job)  # it killed itself
        lines = self.served_log(job_id)
        for name in ATTEMPTS:
            self.assertIn("attempt %s: EACCES" % name, lines, "\n".join(lines))
        for directory in (job_root, os.path.join(job_root, "run"), os.path.join(job_root, "logs")):
            st = os.lstat(directory)
            self.assertEqual(st.st_uid, 0, directory)
            self.assertEqual(st.st_mode & 0o022, 0, "%s is writable by the job" % directory)
            for name in os.listdir(directory):
                self.assertFalse(os.path.islink(os.path.join(directory, name)), name)

    def test_a_metrics_file_that_is_a_link_is_not_read(self):
        job_id = "hostile_metrics"
        self.submit(job_id, ATTACK_METRICS, [self.canary], {"hyperparameters": {
            "goal": "MAXIMIZE", "hyperparameterMetricTag": "accuracy", "maxTrials": 1,
            "maxParallelTrials": 1,
            "params": [{"parameterName": "lr", "type": "DOUBLE", "minValue": 0.01,
                        "maxValue": 0.1}]}})
        job = self.wait_for_end(job_id)
        self.assertIn("planted ", "\n".join(self.served_log(job_id)))
        self.assertNotIn("0.123456", json.dumps(job), "the server read the root file as metrics")


if __name__ == "__main__":
    def _set(path):
        global TRAINYARD
        TRAINYARD = path
    gcloud_env.main(__doc__, _set)
