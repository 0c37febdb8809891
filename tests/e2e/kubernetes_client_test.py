#!/usr/bin/python3
"""The Python Kubernetes client (Debian's python3-kubernetes) against a real `trainyard serve`.

As its docs show, with the kubeconfig `trainyard kubeconfig --token-file` prints (the server checks
tokens, `--auth tokens`; the client sends the editor's token from the file the kubeconfig names):
`CustomObjectsApi` creates a TFJob (group kubeflow.org, v1, plural tfjobs), gets it, lists it,
merge-patches its labels, lists it by those labels, is refused a replace carrying a stale
resourceVersion (409 Conflict), replaces it (again on a conflict) and deletes it (a get is then
404); `CoreV1Api.list_namespaced_pod` lists its pods, `watch.Watch().stream` of
`list_namespaced_pod` follows its worker to Succeeded (the client sends `watch=True`),
`read_namespaced_pod_status` shows the terminated container (exit code 0, its start and end),
and `read_namespaced_pod_log` returns what the replica printed. The client's models validate
required fields: every pod it reads must deserialize. The worker runs on the host (`--containers
host`), so the suite needs no image and stays short for CI.

Usage: kubernetes_client_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import os
import subprocess
import sys
import tempfile
import time

import urllib3
from kubernetes import client, config, watch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

TRAINYARD = None  # set by main()
NAMESPACE = "p"
TFJOBS = ("kubeflow.org", "v1", NAMESPACE, "tfjobs")
JOB = "kclient"
POD = JOB + "-worker-0"
TRAINER = "for i in range(3):\n    print('step', i)\n"
WATCH_TIMEOUT_S = 60


def tfjob(name):
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": name, "labels": {"via": "python"}},
            "spec": {"tfReplicaSpecs": {"Worker": {
                "replicas": 1, "restartPolicy": "Never",
                "template": {"spec": {"containers": [{
                    "name": "tensorflow", "image": "example/tiny",
                    "command": ["/usr/bin/python3", "-u", "-c", TRAINER]}]}}}}}}


class KubernetesClientTest(gcloud_env.ServerTestCase):

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-kubernetes-client-")
        data = os.path.join(cls.tmp, "data")
        token_file = os.path.join(cls.tmp, "editor.token")
        # Unlike kubectl, the client sends the file's bytes as they are, a newline included:
        # `--output` writes none.
        subprocess.run([TRAINYARD, "auth", "create-token", "editor", "--role", "editor",
                        "--project", NAMESPACE, "--data-dir", data, "--output", token_file],
                       capture_output=True, text=True, timeout=60, check=True)
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, data,
                                             ["--auth", "tokens", "--containers", "host"])
        kubeconfig = os.path.join(cls.tmp, "kubeconfig")
        with open(kubeconfig, "w") as f:
            subprocess.run([TRAINYARD, "kubeconfig", "--server", cls.server.url, "--namespace",
                            NAMESPACE, "--token-file", token_file], stdout=f, timeout=60,
                           check=True)
        api = config.new_client_from_config(config_file=kubeconfig)
        cls.objects = client.CustomObjectsApi(api)
        cls.core = client.CoreV1Api(api)

    def test_1_create_get_list_patch_replace(self):
        created = self.objects.create_namespaced_custom_object(*TFJOBS, tfjob(JOB))
        self.assertEqual((created["kind"], created["metadata"]["name"],
                          created["metadata"]["namespace"]), ("TFJob", JOB, NAMESPACE))
        got = self.objects.get_namespaced_custom_object(*TFJOBS, JOB)
        self.assertEqual(got["metadata"]["uid"], created["metadata"]["uid"])
        listed = self.objects.list_namespaced_custom_object(*TFJOBS)
        self.assertEqual([i["metadata"]["name"] for i in listed["items"]], [JOB])
        patched = self.objects.patch_namespaced_custom_object(
            *TFJOBS, JOB, {"metadata": {"labels": {"team": "ml"}}})
        self.assertEqual(patched["metadata"]["labels"], {"via": "python", "team": "ml"})
        selected = self.objects.list_namespaced_custom_object(*TFJOBS, label_selector="team=ml")
        self.assertEqual([i["metadata"]["name"] for i in selected["items"]], [JOB])
        self.assertEqual(
            self.objects.list_namespaced_custom_object(*TFJOBS, label_selector="team=x")["items"],
            [])
        # The object as created is stale since the patch: replacing it is a Conflict that
        # changes nothing.
        stale = dict(created, metadata=dict(created["metadata"], labels={"stale": "yes"}))
        with self.assertRaises(client.exceptions.ApiException) as refused:
            self.objects.replace_namespaced_custom_object(*TFJOBS, JOB, stale)
        self.assertEqual((refused.exception.status, refused.exception.reason), (409, "Conflict"))
        self.assertNotIn("stale", self.objects.get_namespaced_custom_object(
            *TFJOBS, JOB)["metadata"]["labels"])
        replaced = self.replace_on_conflict(lambda job: job["metadata"]["labels"].update(stage="2"))
        self.assertEqual(replaced["metadata"]["labels"]["stage"], "2")

    def replace_on_conflict(self, change, attempts=5):
        """A get, a change and a replace carrying the got resourceVersion, again on 409 Conflict,
        as client-go's RetryOnConflict does: the job runs meanwhile, and each status change the
        server records is a new resourceVersion (CI saw one land between the get and the put).
        Every attempt conflicting fails the test, as does any other error."""
        for _ in range(attempts):
            current = self.objects.get_namespaced_custom_object(*TFJOBS, JOB)
            change(current)
            try:
                return self.objects.replace_namespaced_custom_object(*TFJOBS, JOB, current)
            except client.exceptions.ApiException as error:
                if error.status != 409:
                    raise
                print(f"replace conflicted at resourceVersion "
                      f"{current['metadata']['resourceVersion']}", file=sys.stderr)
        self.fail(f"the replace conflicted {attempts} times")

    def watch_phases(self):
        """The pod's (event type, phase) pairs from a watch until it ends. A watch whose connection
        breaks is made again, as a client must (the API may end any watch); once the full suite's
        load saw the server end one without its last chunk (stop 42's note), so the breaks are
        printed, and more than two fail the test."""
        for attempt in range(3):
            phases = []
            stream = watch.Watch()
            try:
                for event in stream.stream(self.core.list_namespaced_pod, NAMESPACE,
                                           label_selector="training.kubeflow.org/job-name=" + JOB,
                                           timeout_seconds=WATCH_TIMEOUT_S):
                    pod = event["object"]  # a V1Pod: the client validated its required fields
                    self.assertEqual(pod.metadata.name, POD)
                    phases.append((event["type"], pod.status.phase))
                    if pod.status.phase in ("Succeeded", "Failed"):
                        stream.stop()
                return phases
            except urllib3.exceptions.ProtocolError as error:
                print(f"watch {attempt + 1} broke after {phases}: {error}", file=sys.stderr)
        self.fail("the pod watch broke three times")

    def test_2_watch_the_pod_to_succeeded_and_read_its_log(self):
        phases = self.watch_phases()
        self.assertEqual(phases[0][0], "ADDED", phases)
        self.assertEqual(phases[-1][1], "Succeeded", phases)
        pods = self.core.list_namespaced_pod(NAMESPACE)
        self.assertEqual([p.metadata.name for p in pods.items], [POD])
        status = self.core.read_namespaced_pod_status(POD, NAMESPACE).status
        terminated = status.container_statuses[0].state.terminated
        self.assertEqual((status.phase, terminated.exit_code), ("Succeeded", 0))
        self.assertLessEqual(terminated.started_at, terminated.finished_at)
        self.assertEqual(self.core.read_namespaced_pod_log(POD, NAMESPACE),
                         "step 0\nstep 1\nstep 2\n")

    def test_3_delete(self):
        self.objects.delete_namespaced_custom_object(*TFJOBS, JOB)
        with self.assertRaises(client.ApiException) as missing:
            self.objects.get_namespaced_custom_object(*TFJOBS, JOB)
        self.assertEqual(missing.exception.status, 404)
        deadline = time.monotonic() + WATCH_TIMEOUT_S
        while self.core.list_namespaced_pod(NAMESPACE).items and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(self.core.list_namespaced_pod(NAMESPACE).items, [])


if __name__ == "__main__":
    gcloud_env.main(__doc__, lambda path: globals().__setitem__("TRAINYARD", path))
