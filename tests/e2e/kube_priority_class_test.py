#!/usr/bin/python3
"""Issue #34's priority classes with the real kubectl: a TFJob whose
`runPolicy.schedulingPolicy.priorityClass` is one an admin set with `trainyard priority-class set`
is accepted and placed with the class's priority; one the admin has not defined (or deleted) is
refused with a Kubernetes Status naming it, and nothing is stored.

One emulated T4 (`trainyard serve --cluster-file` of one node, `--containers host`), held by a job
that opted out of preemption (`trainyard-preemptible: "false"`: a `sleep` command job through the
ml v1 API), so every other job waits for it and the queue's order (ml v1 `jobPosition`) shows each
job's priority. Waiting on the T4, in the order they were submitted: a TFJob without a class
(priority 0), an ml v1 job of priority 499, the TFJob of class `urgent` (500), an ml v1 job of
priority 501. The queue must read 501, urgent, 499, the plain TFJob: the class's job went ahead of
an earlier job of lower priority and stayed behind a later one of higher, so its priority is 500,
the admin's number.

Then preemption by class: a TFJob of class `top` (900; its container's command a `sleep`) takes the
T4 from a running ml v1 job of priority 0, which goes back to QUEUED; running, the TFJob keeps its
class's number, so an ml v1 job of 500 waits for room and one of 1000 preempts it, the TFJob's
events (`kubectl describe`) saying "(1000 over 900)". Nothing runs but `sleep`: no image is
needed.

Usage: kube_priority_class_test.py --trainyard PATH [unittest args]. Ends with "N passed, M
failed".
"""

import json
import os
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402
import kube_env  # noqa: E402

TRAINYARD = None  # set by main()
PROJECT = "p"
DEADLINE_S = 120  # per wait: a 2-core machine shared with other tests

# One worker on one GPU, of the class `priority_class` if given, running `command` if given.
def tfjob(name, priority_class=None, command=None):
    return kube_env.tfjob(name, gpus=1, command=command, priority_class=priority_class)


def command_job(job_id, priority, labels=None):
    """An ml v1 job running `sleep` on one T4 at `priority` (--containers host: no image)."""
    return {"jobId": job_id, "labels": labels or {},
            "trainingInput": {"region": "us-central1", "scaleTier": "CUSTOM",
                              "masterType": "n1-standard-4",
                              "masterConfig": {"imageUri": "local/sleep",
                                               "containerCommand": ["/bin/sleep", "600"],
                                               "acceleratorConfig": {
                                                   "count": "1", "type": "NVIDIA_TESLA_T4"}},
                              "scheduling": {"priority": priority}}}


class KubePriorityClassTest(kube_env.KubeServerTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.start_kube_server(TRAINYARD, "trainyard-e2e-kube-class-", t4s=1, namespace=PROJECT)

    # -- helpers ----------------------------------------------------------------------------

    def kubectl(self, *args, stdin=None):
        return self.run_kubectl(*args, stdin=stdin)

    def call(self, method, path, body=None):
        """(HTTP status, JSON answer) of one request to the server."""
        request = urllib.request.Request(
            self.server.url.rstrip("/") + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def job(self, job_id):
        status, job = self.call("GET", "/v1/projects/%s/jobs/%s" % (PROJECT, job_id))
        self.assertEqual(status, 200, job)
        return job

    def submit(self, job):
        """Creates an ml v1 job through the API."""
        status, answer = self.call("POST", "/v1/projects/%s/jobs" % PROJECT, job)
        self.assertEqual(status, 200, answer)

    def queue(self, job_ids):
        """The jobs in the order of their jobPosition once every one is QUEUED with one."""
        jobs = {job_id: self.job(job_id) for job_id in job_ids}
        if not all(j["state"] == "QUEUED" and j.get("jobPosition") for j in jobs.values()):
            return None
        return sorted(job_ids, key=lambda job_id: int(jobs[job_id]["jobPosition"]))

    # -- tests ------------------------------------------------------------------------------

    def test_a_class_set_by_an_admin_gives_a_tfjob_its_priority_and_an_unknown_one_is_refused(
            self):
        self.trainyard("priority-class", "set", "urgent", "500")
        self.assertIn("urgent", self.trainyard("priority-class", "list").out)

        # The T4's holder: no other job may take it, whatever its priority.
        status, answer = self.call("POST", "/v1/projects/%s/jobs" % PROJECT, command_job(
            "holder", 0, labels={"trainyard-preemptible": "false"}))
        self.assertEqual(status, 200, answer)
        gcloud_env.wait_until("the holder running",
                              lambda: self.job("holder")["state"] == "RUNNING", DEADLINE_S,
                              self.server.log)

        created = self.kubectl("create", "-f", "-", stdin=tfjob("plain"))
        self.assertEqual(created.rc, 0, created)
        status, answer = self.call("POST", "/v1/projects/%s/jobs" % PROJECT,
                                   command_job("before", 499))
        self.assertEqual(status, 200, answer)
        created = self.kubectl("create", "-f", "-", stdin=tfjob("urgent", "urgent"))
        self.assertEqual(created.rc, 0, created)
        self.assertIn("tfjob.kubeflow.org/urgent created", created.out)
        self.assertNotIn("schedulingPolicy", created.err)  # honoured, not warned about
        status, answer = self.call("POST", "/v1/projects/%s/jobs" % PROJECT,
                                   command_job("after", 501))
        self.assertEqual(status, 200, answer)

        order = ["after", "urgent", "before", "plain"]
        self.assertEqual(gcloud_env.wait_until("every job queued behind the holder",
                                               lambda: self.queue(order), DEADLINE_S,
                                               self.server.log), order)
        self.assertEqual(self.job("holder")["state"], "RUNNING")  # nobody preempted it
        shown = self.kubectl("get", "tfjob", "urgent", "-o",
                             "jsonpath={.spec.runPolicy.schedulingPolicy.priorityClass}")
        self.assertEqual((shown.rc, shown.out), (0, "urgent"), shown)

        # An unknown class: refused as Kubernetes's admission refuses one, nothing stored.
        self.trainyard("priority-class", "delete", "urgent")
        refused = self.kubectl("create", "-f", "-", stdin=tfjob("again", "urgent"))
        self.assertNotEqual(refused.rc, 0, refused)
        self.assertIn('Error from server (Forbidden): error when creating "STDIN": '
                      'tfjobs.kubeflow.org "again" is forbidden: no PriorityClass with name '
                      "urgent was found", refused.err)
        self.assertNotEqual(self.kubectl("get", "tfjob", "again").rc, 0)
        manifest = json.loads(self.kubectl("create", "--dry-run=client", "-o", "json", "-f", "-",
                                           stdin=tfjob("again", "nightly")).out)
        status, answer = self.call(
            "POST", "/apis/kubeflow.org/v1/namespaces/%s/tfjobs" % PROJECT, manifest)
        self.assertEqual(status, 403, answer)
        self.assertEqual(answer, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'tfjobs.kubeflow.org "again" is forbidden: no PriorityClass with name '
                       "nightly was found",
            "reason": "Forbidden",
            "details": {"name": "again", "group": "kubeflow.org", "kind": "tfjobs"},
            "code": 403})
        self.assertEqual(self.call("GET", "/v1/projects/%s/jobs/again" % PROJECT)[0], 404)

        for name in ("plain", "urgent"):
            deleted = self.kubectl("delete", "tfjob", name)
            self.assertEqual(deleted.rc, 0, deleted)
        for job_id in ("holder", "before", "after"):
            status, answer = self.call("POST",
                                       "/v1/projects/%s/jobs/%s:cancel" % (PROJECT, job_id), {})
            self.assertEqual(status, 200, answer)

    def test_a_tfjob_of_a_higher_class_preempts_and_is_preempted_by_its_classs_number(self):
        self.trainyard("priority-class", "set", "top", "900")
        self.submit(command_job("low", 0))
        gcloud_env.wait_until("low running", lambda: self.job("low")["state"] == "RUNNING",
                              DEADLINE_S, self.server.log)

        # A TFJob of class top (900) takes the T4 from the ml v1 job of 0.
        created = self.kubectl("create", "-f", "-", stdin=tfjob(
            "top", "top", command=["/bin/sleep", "600"]))
        self.assertEqual(created.rc, 0, created)
        waited = self.kubectl("wait", "--for=condition=Running", "tfjob/top", "--timeout=120s")
        self.assertEqual(waited.rc, 0, waited)
        self.assertEqual(self.job("low")["state"], "QUEUED")

        # Running, it keeps its class's number: a job of 500 waits, one of 1000 preempts it.
        self.submit(command_job("mid", 500))
        self.assertEqual(gcloud_env.wait_until("mid first in the queue", lambda: self.queue(
            ["mid", "low"]), DEADLINE_S, self.server.log), ["mid", "low"])
        status, cluster = self.call("GET", "/trainyard/v1/projects/%s/cluster" % PROJECT)
        self.assertEqual(status, 200, cluster)
        self.assertEqual(cluster["queue"][0]["jobId"], "mid", cluster)
        self.assertEqual(cluster["queue"][0]["reason"], "Waiting for room: its replica needs 1 × "
                                                        "NVIDIA_TESLA_T4 (0 of 1 free).", cluster)
        self.submit(command_job("higher", 1000))
        gcloud_env.wait_until("higher running", lambda: self.job("higher")["state"] == "RUNNING",
                              DEADLINE_S, self.server.log)
        described = self.kubectl("describe", "tfjob", "top")
        self.assertIn("The job was preempted by job p/higher, of higher priority (1000 over 900)",
                      described.out)
        self.assertNotIn("preempted by job p/mid", described.out)

        self.assertEqual(self.kubectl("delete", "tfjob", "top").rc, 0)
        for job_id in ("low", "mid", "higher"):
            status, answer = self.call("POST",
                                       "/v1/projects/%s/jobs/%s:cancel" % (PROJECT, job_id), {})
            self.assertEqual(status, 200, answer)
        self.trainyard("priority-class", "delete", "top")


if __name__ == "__main__":
    gcloud_env.main(__doc__, lambda path: globals().__setitem__("TRAINYARD", path))
