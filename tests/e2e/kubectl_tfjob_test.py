#!/usr/bin/python3
"""Kubeflow TFJobs (issue #22) driven by the real kubectl (1.32, from the Cloud SDK packages)
against a real `trainyard serve`, whose replicas run through real podman with the trainer image
of the fixture `container_images` (tests/images).

Covers: `kubectl apply -f examples/tfjob/tfjob.yaml` (the seed's v1beta2 manifest, 1 PS + 4
Workers, one emulated T4 each, nodeSelector nvidia=t4 matching the labelled node of
examples/tfjob/cluster.yaml) to Succeeded with `kubectl wait`, every replica printing Kubeflow's
TF_CONFIG and reaching every other at its `<job>-<type>-<i>.<ns>.svc` address; `get tfjobs`,
`get pods -l`, `logs`, `describe` (conditions and events); the TFJob in `gcloud ai-platform
jobs list`'s API; a second apply of a changed manifest; a change of a started job refused; an
invalid manifest refused with a 422 naming the field; `trainyard jobs suspend`/`resume` seen as
the operator's Suspended conditions; schedulingPolicy's queue and minAvailable honoured, what
cannot be refused, and an unknown priorityClass refused as admission does; the literal seed (misplaced fields) refused
under strict validation and accepted with --validate=warn; delete leaving no container;
`apply --server-side` (issue #36), `delete -l`, `--all` and the collection's DELETE.

Usage: kubectl_tfjob_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
Exits 77 (skipped) when the fixture could not build the images, or 1 with
TRAINYARD_REQUIRE_CONTAINERS=1.
"""

import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(REPO, "examples", "tfjob")
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"
TRAINYARD = None  # set by main()
STATE_DIR = os.environ.get("TY_IMAGES_STATE_DIR", "")
TRAINER = "localhost/trainyard-test/trainer:1"


def images_available():
    """Whether the fixture built the trainer image, and why not."""
    if subprocess.run(["podman", "image", "exists", TRAINER]).returncode == 0:
        return True, ""
    try:
        with open(STATE_DIR + ".unavailable", encoding="utf-8") as f:
            return False, f.read().strip()
    except OSError:
        return False, "no image %s (ctest runs container_images_setup)" % TRAINER


def manifest(name, worker_args, replicas=2, extra_spec="", restart="OnFailure"):
    return """apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: %s
  labels: {team: a}
spec:
%s  tfReplicaSpecs:
    Worker:
      replicas: %d
      restartPolicy: %s
      template:
        spec:
          containers:
          - name: tensorflow
            image: %s
            args: %s
""" % (name, extra_spec, replicas, restart, TRAINER, json.dumps(worker_args))


class KubectlTFJobTest(gcloud_env.ServerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-kubectl-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.server = gcloud_env.start_server(
            TRAINYARD, cls.tmp, cls.data,
            extra_args=("--cluster-file", os.path.join(EXAMPLE, "cluster.yaml"),
                        "--stop-grace", "3"))
        cls.kubeconfig = os.path.join(cls.tmp, "kubeconfig")
        made = subprocess.run([TRAINYARD, "kubeconfig", "--server", cls.server.url,
                               "--namespace", "default"], capture_output=True, text=True)
        with open(cls.kubeconfig, "w", encoding="utf-8") as f:
            f.write(made.stdout)
        cls.env = dict(os.environ, KUBECONFIG=cls.kubeconfig, HOME=cls.tmp)

    # -- helpers ----------------------------------------------------------------------------

    def kubectl(self, *args, stdin=None, timeout=180):
        proc = subprocess.run([KUBECTL, *args], env=self.env, cwd=self.tmp, input=stdin,
                              capture_output=True, text=True, timeout=timeout)
        return gcloud_env.Run(proc)

    def ok(self, *args, **kwargs):
        run = self.kubectl(*args, **kwargs)
        self.assertEqual(run.rc, 0, "%r\n--- server\n%s" % (run, self.server.log()[-3000:]))
        return run

    def containers_of(self, job_id):
        listed = subprocess.run(["podman", "ps", "-a", "--filter", "label=trainyard.job=" + job_id,
                                 "--format", "{{.Names}}"], capture_output=True, text=True)
        return listed.stdout.split()

    def settled_containers_of(self, job_id, count, timeout=60):
        """The job's containers once there are `count` of them (or the deadline passed). A
        replica is "started" when its podman client runs, a moment before podman has made its
        container: a busy machine makes that moment longer, so wait for the containers."""
        deadline = time.monotonic() + timeout
        names = self.containers_of(job_id)
        while len(names) != count and time.monotonic() < deadline:
            time.sleep(0.2)
            names = self.containers_of(job_id)
        return names

    # -- tests ------------------------------------------------------------------------------

    def test_the_seed_manifest_runs_to_succeeded(self):
        self.ok("apply", "-f", os.path.join(EXAMPLE, "tfjob.yaml"))
        self.ok("wait", "--for=condition=Succeeded", "tfjob/nvidiatfjob", "--timeout=150s",
                timeout=170)
        table = self.ok("get", "tfjobs").out
        self.assertRegex(table, r"nvidiatfjob\s+Succeeded")
        pods = self.ok("get", "pods", "-l", "training.kubeflow.org/job-name=nvidiatfjob").out
        names = sorted(line.split()[0] for line in pods.splitlines()[1:])
        self.assertEqual(names, ["nvidiatfjob-ps-0"] + ["nvidiatfjob-worker-%d" % i
                                                        for i in range(4)], pods)
        for name in names:
            log = self.ok("logs", name).out
            tf_config = json.loads(log.split("TF_CONFIG ", 1)[1].splitlines()[0])
            kind, index = name.split("-")[-2:]
            self.assertEqual(tf_config["task"], {"type": kind, "index": int(index)})
            self.assertEqual(tf_config["environment"], "cloud")
            self.assertEqual(sorted(tf_config["cluster"]), ["ps", "worker"])
            self.assertTrue(all(a.startswith("nvidiatfjob-worker-%d.default.svc:" % i)
                                for i, a in enumerate(tf_config["cluster"]["worker"])), tf_config)
            self.assertIn("in container True", log)
            self.assertIn("reached 4 of 4 peers, reached by 4", log)
        tfjob = json.loads(self.ok("get", "tfjob", "nvidiatfjob", "-o", "json").out)
        self.assertEqual(tfjob["apiVersion"], "kubeflow.org/v1beta2")
        self.assertEqual(tfjob["status"]["conditions"][-1]["type"], "Succeeded")
        # Worker 0 decides; the others may still be finishing when it ends the job and are
        # stopped then (a race between exits, not a failure).
        self.assertGreaterEqual(tfjob["status"]["replicaStatuses"]["Worker"].get("succeeded", 0), 1)
        described = self.ok("describe", "tfjob", "nvidiatfjob").out
        self.assertIn("TFJobSucceeded", described)
        self.assertIn("Events:", described)
        self.assertIn("Started", described)
        # The same job through the ml v1 API gcloud uses.
        with urllib.request.urlopen(self.server.url.rstrip("/") +
                                    "/v1/projects/default/jobs/nvidiatfjob") as answer:
            job = json.load(answer)
        self.assertEqual(job["state"], "SUCCEEDED")
        self.assertEqual(job["trainingInput"]["workerCount"], "3")
        self.assertEqual(job["trainingInput"]["masterConfig"]["acceleratorConfig"],
                         {"count": "1", "type": "NVIDIA_TESLA_T4"})
        self.ok("delete", "tfjob", "nvidiatfjob")
        self.assertNotIn("nvidiatfjob", self.ok("get", "tfjobs").out)
        self.assertNotEqual(self.kubectl("get", "tfjob", "nvidiatfjob").rc, 0)
        self.assertEqual(self.containers_of("nvidiatfjob"), [])

    def test_a_changed_manifest_applies_again_and_delete_stops_it(self):
        text = manifest("sleepy", ["--mode=sleep", "--seconds=60"],
                        extra_spec="  runPolicy: {ttlSecondsAfterFinished: 60}\n")
        created = self.ok("apply", "-f", "-", stdin=text)
        self.assertIn("Warning: spec.runPolicy.ttlSecondsAfterFinished is not acted on",
                      created.err)
        self.ok("wait", "--for=condition=Running", "tfjob/sleepy", "--timeout=60s", timeout=80)
        relabelled = self.ok("apply", "-f", "-", stdin=text.replace("team: a", "team: b"))
        self.assertIn("tfjob.kubeflow.org/sleepy configured", relabelled.out)
        labels = self.ok("get", "tfjob", "sleepy", "-o", "jsonpath={.metadata.labels.team}").out
        self.assertEqual(labels, "b")
        grown = self.kubectl("apply", "-f", "-", stdin=text.replace("replicas: 2", "replicas: 3"))
        self.assertNotEqual(grown.rc, 0)
        self.assertIn("the TFJob has started", grown.err)
        self.assertEqual(len(self.settled_containers_of("sleepy", 2)), 2)
        self.check_a_running_replica("sleepy-worker-0")
        events = self.ok("get", "events").out
        self.assertRegex(events.splitlines()[0], r"LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE")
        self.assertRegex(events, r"Normal\s+Started\s+tfjob/sleepy\s", events)
        # The pods' watch alone (--watch-only): every line is one of its events.
        watch = subprocess.Popen([KUBECTL, "get", "pods", "--watch-only", "--output-watch-events",
                                  "-l", "training.kubeflow.org/job-name=sleepy"],
                                 env=self.env, cwd=self.tmp, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            self.ok("delete", "tfjob", "sleepy", "--timeout=60s", timeout=80)
            lines = self.lines_until(watch, r"DELETED\s+sleepy-worker-1\s", timeout=20)
        finally:
            watch.kill()
            _, err = watch.communicate()
        self.assertRegex("".join(lines), r"DELETED\s+sleepy-worker-0\s", (lines, err))
        self.assertEqual(self.containers_of("sleepy"), [])
        self.assertNotEqual(self.kubectl("get", "tfjob", "sleepy").rc, 0)

    def check_a_running_replica(self, pod):
        """`logs`, `logs -f` and `describe pod` on a replica while it runs (issue #36)."""
        follow = subprocess.Popen([KUBECTL, "logs", "-f", pod], env=self.env, cwd=self.tmp,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.ok("logs", pod)
            described = self.ok("describe", "pod", pod).out
            self.assertRegex(described, r"State:\s+Running\n\s+Started:\s+\S", described)
            # Following: still running a moment later, not ended by an error.
            code = self.wait_exit(follow, 1)
        finally:
            follow.kill()
            _, err = follow.communicate()
        self.assertIsNone(code, "kubectl logs -f ended: " + err)

    @staticmethod
    def wait_exit(proc, seconds):
        """`proc`'s exit code if it ends within `seconds`, else None."""
        try:
            return proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None

    @staticmethod
    def lines_until(proc, pattern, timeout):
        """The lines `proc` prints until one matches `pattern`, it ends, or `timeout` passes.

        Reads the pipe's descriptor itself: select() on a buffered file object would report
        nothing while lines that arrived in one write wait in its buffer."""
        lines, pending = [], ""
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            pending += chunk.decode(errors="replace")
            *complete, pending = pending.split("\n")
            for line in complete:
                lines.append(line + "\n")
                if re.search(pattern, line):
                    return lines
        return lines

    def test_suspend_stops_the_replicas_and_resume_runs_them_again(self):
        self.ok("apply", "-f", "-", stdin=manifest("pausable", ["--mode=sleep", "--seconds=120"]))
        self.ok("wait", "--for=condition=Running", "tfjob/pausable", "--timeout=60s", timeout=80)
        self.assertEqual(len(self.settled_containers_of("pausable", 2)), 2)
        self.ok("patch", "tfjob", "pausable", "--type=merge", "-p",
                '{"spec":{"runPolicy":{"suspend":true}}}')
        self.ok("wait", "--for=condition=Suspended", "tfjob/pausable", "--timeout=60s",
                timeout=80)
        self.assertEqual(self.settled_containers_of("pausable", 0), [])
        self.ok("patch", "tfjob", "pausable", "--type=merge", "-p",
                '{"spec":{"runPolicy":{"suspend":false}}}')
        self.ok("wait", "--for=condition=Running", "tfjob/pausable", "--timeout=60s", timeout=80)
        self.assertEqual(len(self.settled_containers_of("pausable", 2)), 2)
        self.ok("delete", "tfjob", "pausable", "--timeout=60s", timeout=80)

    def test_trainyard_suspend_shows_the_tfjob_suspended_then_resumed(self):
        """`trainyard jobs suspend` (trainyard v1's verb) sets the flag runPolicy.suspend sets:
        kubectl sees the operator's conditions, and spec.runPolicy.suspend as stored."""
        self.ok("apply", "-f", "-", stdin=manifest("held", ["--mode=sleep", "--seconds=120"]))
        self.ok("wait", "--for=condition=Running", "tfjob/held", "--timeout=60s", timeout=80)
        self.assertEqual(len(self.settled_containers_of("held", 2)), 2)
        target = ["--server", self.server.url, "--project", "default"]
        suspended = subprocess.run([TRAINYARD, "jobs", "suspend", "held", *target],
                                   capture_output=True, text=True, env=self.env)
        self.assertEqual(suspended.returncode, 0, suspended.stderr)
        self.ok("wait", "--for=condition=Suspended", "tfjob/held", "--timeout=60s", timeout=80)
        self.assertEqual(self.settled_containers_of("held", 0), [])
        self.assertEqual(self.ok("get", "tfjob", "held", "-o",
                                 "jsonpath={.spec.runPolicy.suspend}").out, "true")
        reason = 'jsonpath={.status.conditions[?(@.type=="Suspended")].reason}'
        self.assertEqual(self.ok("get", "tfjob", "held", "-o", reason).out, "TFJobSuspended")
        resumed = subprocess.run([TRAINYARD, "jobs", "resume", "held", *target],
                                 capture_output=True, text=True, env=self.env)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.ok("wait", "--for=condition=Running", "tfjob/held", "--timeout=60s", timeout=80)
        self.assertEqual(self.ok("get", "tfjob", "held", "-o", reason).out, "TFJobResumed")
        self.assertEqual(len(self.settled_containers_of("held", 2)), 2)
        self.ok("delete", "tfjob", "held", "--timeout=60s", timeout=80)

    def test_scheduling_policy_is_honoured_or_refused_with_its_cause(self):
        """queue (a project's quota: the namespace's own) and minAvailable (every replica: a
        gang) are honoured without a warning; what trainyard cannot honour is refused, and a
        priorityClass the admin has not defined is refused as Kubernetes's admission does."""
        def with_policy(name, policy):
            return manifest(name, ["--mode=print"], extra_spec=(
                "  runPolicy:\n    schedulingPolicy: %s\n" % policy))

        honoured = self.ok("apply", "--dry-run=server", "-f", "-",
                           stdin=with_policy("gang", "{queue: default, minAvailable: 2}"))
        self.assertIn("tfjob.kubeflow.org/gang created (server dry run)", honoured.out)
        self.assertNotIn("schedulingPolicy", honoured.err)

        unknown = self.kubectl("apply", "-f", "-",
                               stdin=with_policy("classy", "{priorityClass: urgent}"))
        self.assertNotEqual(unknown.rc, 0)
        self.assertIn('Error from server (Forbidden): error when creating "STDIN": '
                      'tfjobs.kubeflow.org "classy" is forbidden: no PriorityClass with name '
                      "urgent was found", unknown.err)
        self.assertNotEqual(self.kubectl("get", "tfjob", "classy").rc, 0)

        other = self.kubectl("apply", "-f", "-",
                             stdin=with_policy("elsewhere", "{queue: team-b}"))
        self.assertNotEqual(other.rc, 0)
        self.assertIn('spec.runPolicy.schedulingPolicy.queue: Invalid value: "team-b": a queue '
                      "is a project's quota", other.err)
        partial = self.kubectl("apply", "-f", "-",
                               stdin=with_policy("partial", "{minAvailable: 1}"))
        self.assertNotEqual(partial.rc, 0)
        self.assertIn("spec.runPolicy.schedulingPolicy.minAvailable: Invalid value: 1: "
                      "trainyard starts all 2 replicas together or none", partial.err)
        for name in ("elsewhere", "partial"):
            self.assertNotEqual(self.kubectl("get", "tfjob", name).rc, 0)

    def test_server_side_apply_and_delete_by_selector(self):
        """`kubectl apply --server-side` (issue #36) creates, re-applies an unchanged manifest
        without writing (generation and resourceVersion stay), applies a change under the update
        rules; `kubectl delete tfjobs -l`, `--all` and the collection's DELETE (deletecollection,
        with a label selector) delete what they choose. The jobs are suspended (nothing runs), in a
        namespace of their own."""
        def ok(*args, **kwargs):
            return self.ok(*args, "-n", "apply-e2e", **kwargs)

        def held(name, team):
            return manifest(name, ["--mode=print"],
                            extra_spec="  runPolicy: {suspend: true}\n").replace(
                                "team: a", "team: " + team)

        def versions(name):
            return ok("get", "tfjob", name, "-o", "jsonpath={.metadata.generation} "
                      "{.metadata.resourceVersion}").out

        text = held("applied", "a")
        created = ok("apply", "--server-side", "-f", "-", stdin=text)
        self.assertIn("tfjob.kubeflow.org/applied serverside-applied", created.out)
        before = versions("applied")
        ok("apply", "--server-side", "-f", "-", stdin=text)
        self.assertEqual(versions("applied"), before)
        # `kubectl diff` (a dry-run apply compared with the live object) finds nothing: no status
        # field changes by itself between two reads
        unchanged = self.kubectl("diff", "-n", "apply-e2e", "-f", "-", stdin=text)
        self.assertEqual(unchanged.rc, 0, unchanged.out + unchanged.err)
        ok("apply", "--server-side", "--force-conflicts", "-f", "-",
           stdin=text.replace("replicas: 2", "replicas: 3"))
        generation, _ = versions("applied").split()
        self.assertEqual(int(generation), int(before.split()[0]) + 1)
        self.assertEqual(ok("get", "tfjob", "applied", "-o",
                            "jsonpath={.spec.tfReplicaSpecs.Worker.replicas}").out, "3")
        refused = self.kubectl("apply", "--server-side", "-n", "apply-e2e", "-f", "-",
                               stdin=text.replace("restartPolicy: OnFailure",
                                                  "restartPolicy: Sometimes"))
        self.assertNotEqual(refused.rc, 0)
        self.assertIn("spec.tfReplicaSpecs[Worker].restartPolicy: Unsupported value: "
                      '"Sometimes"', refused.err)

        for name, team in (("sel-1", "b"), ("sel-2", "b"), ("sel-3", "c"), ("sel-4", "d")):
            ok("apply", "-f", "-", stdin=held(name, team))
        ok("delete", "tfjobs", "-l", "team=c")
        collection = json.loads(ok(
            "delete", "--raw",
            "/apis/kubeflow.org/v1/namespaces/apply-e2e/tfjobs?labelSelector=team%3Db").out)
        self.assertEqual(collection["kind"], "TFJobList")
        self.assertEqual(sorted(item["metadata"]["name"] for item in collection["items"]),
                         ["sel-1", "sel-2"])
        left = ok("get", "tfjobs", "-o", "name").out.split()
        self.assertIn("tfjob.kubeflow.org/sel-4", left)
        self.assertIn("tfjob.kubeflow.org/applied", left)
        for gone in ("sel-1", "sel-2", "sel-3"):
            self.assertNotIn("tfjob.kubeflow.org/" + gone, left)
        ok("delete", "tfjobs", "--all")
        self.assertEqual(ok("get", "tfjobs", "-o", "name").out.split(), [])

    def test_auth_can_i_without_tokens_answers_what_a_route_serves(self):
        """A server that checks no tokens lets anyone use every route (issue #36): can-i says
        yes to those and no, with why, to what no route serves."""
        self.assertEqual(self.ok("auth", "can-i", "delete", "tfjobs").out.strip(), "yes")
        self.assertEqual(self.ok("auth", "can-i", "get", "pods", "--subresource=log").out.strip(),
                         "yes")
        refused = self.kubectl("auth", "can-i", "escalate", "tfjobs")
        self.assertEqual(refused.rc, 1, refused)
        self.assertEqual(refused.out.strip(),
                         "no - trainyard serves no route to escalate tfjobs.kubeflow.org")

    def test_explain_describes_the_fields(self):
        spec = self.ok("explain", "tfjob.spec").out
        self.assertIn("TFJobSpec is the desired state of the TFJob", spec)
        for field in ("runPolicy", "successPolicy", "tfReplicaSpecs", "enableDynamicWorker"):
            self.assertRegex(spec, r"\n\s+%s\s" % field, spec)
        suspend = self.ok("explain", "tfjob.spec.runPolicy.suspend", "--api-version",
                          "kubeflow.org/v1").out
        self.assertIn("requeues the job", suspend)

    def test_an_invalid_manifest_is_refused_with_the_field(self):
        text = manifest("bad", ["--mode=print"], restart="Sometimes")
        refused = self.kubectl("apply", "-f", "-", stdin=text.replace("image: " + TRAINER, ""))
        self.assertNotEqual(refused.rc, 0)
        self.assertIn('The TFJob "bad" is invalid', refused.err)
        self.assertIn("spec.tfReplicaSpecs[Worker].restartPolicy: Unsupported value: "
                      '"Sometimes"', refused.err)
        self.assertIn("spec.tfReplicaSpecs[Worker].template.spec.containers[0].image", refused.err)
        self.assertNotEqual(self.kubectl("get", "tfjob", "bad").rc, 0)

    def test_misplaced_fields_are_refused_strictly_and_warned_of_otherwise(self):
        text = manifest("seedlike", ["--mode=print"]).replace(
            "      replicas: 2\n", "      replicas: 2\n      nodeSelector: {nvidia: t4}\n")
        strict = self.kubectl("apply", "-f", "-", stdin=text)
        self.assertNotEqual(strict.rc, 0)
        self.assertIn('unknown field "spec.tfReplicaSpecs.Worker.nodeSelector"', strict.err)
        warned = self.ok("apply", "--validate=warn", "-f", "-", stdin=text)
        self.assertIn("unknown field", warned.err)
        self.ok("wait", "--for=condition=Succeeded", "tfjob/seedlike", "--timeout=120s",
                timeout=140)

    def test_an_exported_job_applies_back_and_runs_the_same(self):
        body = json.dumps({"jobId": "roundtrip", "trainingInput": {
            "scaleTier": "CUSTOM", "region": "us-central1",
            "masterType": "n1-standard-4", "masterConfig": {"imageUri": TRAINER},
            "workerType": "n1-standard-4", "workerCount": "2",
            "args": ["--mode=mesh"]}}).encode()
        request = urllib.request.Request(self.server.url.rstrip("/") + "/v1/projects/default/jobs",
                                         data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            self.assertEqual(answer.status, 200)
        exported = subprocess.run([TRAINYARD, "jobs", "export", "roundtrip", "--format", "tfjob",
                                   "--server", self.server.url, "--project", "default"],
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(exported.returncode, 0, exported.stderr)
        self.assertIn("kind: TFJob", exported.stdout)
        manifest_text = exported.stdout.replace("name: roundtrip", "name: roundtrip-again", 1)
        self.ok("apply", "-f", "-", stdin=manifest_text)
        self.ok("wait", "--for=condition=Succeeded", "tfjob/roundtrip-again", "--timeout=120s",
                timeout=140)
        for pod in ("roundtrip-again-chief-0", "roundtrip-again-worker-0",
                    "roundtrip-again-worker-1"):
            self.assertIn("reached 2 of 2 peers, reached by 2", self.ok("logs", pod).out)


def main():
    available, why = images_available()
    if not available:
        gcloud_env.exit_without_containers(why)

    def set_trainyard(path):
        global TRAINYARD
        TRAINYARD = path

    gcloud_env.main(__doc__, set_trainyard)


if __name__ == "__main__":
    main()
