#!/usr/bin/python3
"""Issue #34's shares and reservation with the real kubectl: what a TFJob's owner reads in
`kubectl describe tfjob` and `kubectl get events` while it waits or after it was preempted.

Two emulated T4s (`trainyard serve --cluster-file` of one node, `--containers host`); every TFJob
is one Worker whose container runs `sleep` on 1 or 2 × nvidia.com/gpu (no image is needed), in the
namespace (project) named by `kubectl -n`. Its own server, not kube_priority_class_test.py's:
that one has a single T4 that its holder keeps, and both scenarios here need two.

Borrowing and reclaim: namespaces s and t each have a quota of 1 × T4 (`trainyard quota set`). s's
second TFJob runs on t's idle T4, borrowed; s's third waits, its "Pending" event naming s's quota
and that nothing idle is left to borrow. When t creates a TFJob, s's borrowed one is preempted (its
events: t's job reclaims the quota it borrowed) and t's runs.

Reservation (Slurm's backfill): in namespace r (no quota) one TFJob holds a T4 with
runPolicy.activeDeadlineSeconds of an hour; a 2 × T4 TFJob then waits holding the reservation, and
a later 1 × T4 TFJob without a deadline waits behind it though a T4 is free; each one's event says
so, naming the reservation.

Usage: kubectl_sharing_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402
import kube_env  # noqa: E402

TRAINYARD = None  # set by main()
DEADLINE_S = 120  # per wait: a 2-core machine shared with other tests
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")

# One worker running `sleep` on `gpus` GPUs, with runPolicy.activeDeadlineSeconds if given.
def tfjob(name, gpus=1, deadline_s=None):
    return kube_env.tfjob(name, gpus=gpus, command=["/bin/sleep", "600"], deadline_s=deadline_s)


class KubectlSharingTest(kube_env.KubeServerTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.start_kube_server(TRAINYARD, "trainyard-e2e-kube-sharing-", t4s=2, namespace="s")

    # -- helpers ----------------------------------------------------------------------------

    def kubectl(self, namespace, *args, stdin=None):
        return self.run_kubectl("-n", namespace, *args, stdin=stdin)

    def create(self, namespace, manifest):
        created = self.kubectl(namespace, "create", "-f", "-", stdin=manifest)
        self.assertEqual(created.rc, 0, created)

    def job(self, namespace, name):
        with urllib.request.urlopen("%sv1/projects/%s/jobs/%s" % (self.server.url, namespace,
                                                                  name), timeout=60) as answer:
            return json.loads(answer.read())

    def wait_state(self, namespace, name, state):
        def reached():
            job = self.job(namespace, name)
            if job["state"] in TERMINAL and state not in TERMINAL:
                self.fail("%s/%s ended: %s" % (namespace, name, job))
            return job["state"] == state
        gcloud_env.wait_until("%s/%s %s" % (namespace, name, state), reached, DEADLINE_S,
                              self.server.log)

    def pending(self, namespace, name):
        """The message of the TFJob's "Pending" event (`kubectl get events`), once there."""
        listed = self.kubectl(namespace, "get", "events", "-o", "json", "--field-selector",
                              "involvedObject.name=" + name)
        self.assertEqual(listed.rc, 0, listed)
        messages = [e["message"] for e in json.loads(listed.out)["items"]
                    if e["reason"] == "Pending"]
        return messages[0] if messages else None

    def described(self, namespace, name):
        shown = self.kubectl(namespace, "describe", "tfjob", name)
        self.assertEqual(shown.rc, 0, shown)
        return shown.out

    def end_all(self, namespace):
        """Deletes the namespace's TFJobs and waits until each has ended, so the next test finds
        the T4s free; a cleanup, run pass or fail."""
        names = self.kubectl(namespace, "get", "tfjobs", "-o", "name").out.split()
        self.kubectl(namespace, "delete", "tfjobs", "--all")
        for name in (n.split("/")[-1] for n in names):
            gcloud_env.wait_until(
                "%s/%s ended" % (namespace, name),
                lambda: self.job(namespace, name)["state"] in TERMINAL, DEADLINE_S,
                self.server.log)

    # -- tests ------------------------------------------------------------------------------

    def test_a_borrowed_tfjob_is_preempted_when_its_owner_reclaims_the_quota(self):
        for namespace in ("s", "t"):
            self.trainyard("quota", "set", namespace, "--accelerator", "NVIDIA_TESLA_T4=1")
            self.addCleanup(self.trainyard, "quota", "delete", namespace)
            self.addCleanup(self.end_all, namespace)
        self.create("s", tfjob("own"))
        self.wait_state("s", "own", "RUNNING")
        self.create("s", tfjob("borrower"))
        self.wait_state("s", "borrower", "RUNNING")
        self.create("s", tfjob("third"))
        reason = gcloud_env.wait_until("s/third's Pending event",
                                       lambda: self.pending("s", "third"), DEADLINE_S,
                                       self.server.log)
        self.assertEqual(reason, "Project s uses 2 of its 1 × NVIDIA_TESLA_T4 (quota), and no "
                                 "idle devices are left to borrow.")
        shown = self.described("s", "third")
        self.assertRegex(shown, r"Normal\s+Pending\s+.*Project s uses 2 of its 1 × "
                                r"NVIDIA_TESLA_T4 \(quota\)")
        self.assertIsNone(self.pending("s", "own"))  # a running TFJob has none

        self.create("t", tfjob("owner"))
        self.wait_state("s", "borrower", "QUEUED")
        self.wait_state("t", "owner", "RUNNING")
        self.assertEqual(self.job("s", "own")["state"], "RUNNING")
        self.assertIn("The job was preempted by job t/owner: project t reclaims its quota, which "
                      "this job borrowed", self.described("s", "borrower"))
        events = self.kubectl("s", "get", "events")
        self.assertEqual(events.rc, 0, events)
        self.assertRegex(events.out, r"Pending\s+tfjob/borrower\s+.*Project s uses")
        self.assertIn("project t reclaims its quota", events.out)

    def test_a_tfjob_waits_behind_a_gang_tfjob_holding_the_reservation(self):
        self.addCleanup(self.end_all, "r")
        self.create("r", tfjob("long", deadline_s=3600))
        self.wait_state("r", "long", "RUNNING")
        self.create("r", tfjob("gang", gpus=2, deadline_s=60))
        self.create("r", tfjob("plain"))

        gang = gcloud_env.wait_until("r/gang's Pending event", lambda: self.pending("r", "gang"),
                                     DEADLINE_S, self.server.log)
        self.assertRegex(gang, r"It holds the reservation: expected to start by \S+")
        plain = gcloud_env.wait_until("r/plain's Pending event",
                                      lambda: self.pending("r", "plain"), DEADLINE_S,
                                      self.server.log)
        self.assertRegex(plain, r"^Waiting behind the reservation for job r/gang ")
        self.assertRegex(self.described("r", "plain"),
                         r"Normal\s+Pending\s+.*Waiting behind the reservation for job r/gang")
        self.assertEqual(self.job("r", "plain")["state"], "QUEUED")  # though a T4 is free
        self.assertEqual(self.job("r", "long")["state"], "RUNNING")


if __name__ == "__main__":
    gcloud_env.main(__doc__, lambda path: globals().__setitem__("TRAINYARD", path))
