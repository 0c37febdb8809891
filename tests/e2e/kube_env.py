"""The set-up the kubectl tests of issue #34's sharing share (kubectl_sharing_test.py,
kube_priority_class_test.py): `trainyard serve` on one node of emulated T4s with `--containers
host` (no image is needed), kubectl pointed at it through `trainyard kubeconfig`, and the
`trainyard` CLI through TRAINYARD_SERVER; and the TFJob manifest those tests and
quota_refusal_test.py create (`tfjob`)."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import gcloud_env

KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"

# One node, its devices `t4s` emulated T4s: a TFJob's nvidia.com/gpu is a T4 there.
CLUSTER = """nodes:
  - name: localhost
    cpus: 8
    memory: 16Gi
    accelerators: {NVIDIA_TESLA_T4: %d}
    emulated: true
"""

# A TFJob of Worker replicas of one container each; `tfjob` fills it in.
TFJOB = """apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: {name}
spec:
{run_policy}  tfReplicaSpecs:
    Worker:
      replicas: {workers}
      template:
        spec:
          containers:
          - name: tensorflow
            image: localhost/trainer:1
{container}"""


def tfjob(name, workers=1, gpus=None, command=None, deadline_s=None, priority_class=None):
    """The YAML of the TFJob `name`: `workers` Worker replicas (an n1-standard-4 each in the
    TFJob mapping), each one container of image localhost/trainer:1 (never pulled with
    `--containers host`) that runs `command` (a list) when given, with a limit of `gpus` ×
    nvidia.com/gpu when given; runPolicy.activeDeadlineSeconds `deadline_s` and
    runPolicy.schedulingPolicy.priorityClass `priority_class` when given."""
    run_policy = ""
    if deadline_s is not None:
        run_policy += "    activeDeadlineSeconds: %d\n" % deadline_s
    if priority_class is not None:
        run_policy += "    schedulingPolicy: {priorityClass: %s}\n" % priority_class
    container = ""
    if command is not None:
        container += "            command: %s\n" % json.dumps(command)
    if gpus is not None:
        container += ("            resources:\n              limits:\n"
                      "                nvidia.com/gpu: %d\n" % gpus)
    return TFJOB.format(name=name, workers=workers, container=container,
                        run_policy="  runPolicy:\n" + run_policy if run_policy else "")


class KubeServerTestCase(gcloud_env.ServerTestCase):
    """A test class that owns such a server (`cls.server`, `cls.tmp`), with kubectl's
    environment (`cls.kube_env`) and the CLI's (`cls.cli_env`)."""

    @classmethod
    def start_kube_server(cls, trainyard, prefix, t4s, namespace):
        """Starts the server on `t4s` T4s; kubectl's default namespace is `namespace`. Skips the
        class when kubectl is not installed."""
        if not os.path.exists(KUBECTL):
            raise unittest.SkipTest("%s is not installed" % KUBECTL)
        cls.trainyard_path = trainyard
        cls.tmp = tempfile.mkdtemp(prefix=prefix)
        cluster = os.path.join(cls.tmp, "cluster.yaml")
        with open(cluster, "w", encoding="utf-8") as f:
            f.write(CLUSTER % t4s)
        cls.server = gcloud_env.start_server(
            trainyard, cls.tmp, os.path.join(cls.tmp, "data"),
            extra_args=["--cluster-file", cluster, "--containers", "host",
                        "--stop-grace", "1", "--stop-jobs-on-exit"])
        made = subprocess.run([trainyard, "kubeconfig", "--server", cls.server.url,
                               "--namespace", namespace], capture_output=True, text=True,
                              check=True)
        kubeconfig = os.path.join(cls.tmp, "kubeconfig")
        with open(kubeconfig, "w", encoding="utf-8") as f:
            f.write(made.stdout)
        cls.kube_env = dict(os.environ, KUBECONFIG=kubeconfig, HOME=cls.tmp)
        cls.cli_env = {k: v for k, v in os.environ.items() if not k.startswith("TRAINYARD_")}
        cls.cli_env["TRAINYARD_SERVER"] = cls.server.url

    def run_tool(self, cmd, env, stdin=None):
        proc = subprocess.run(cmd, env=env, cwd=self.tmp, input=stdin, capture_output=True,
                              text=True, timeout=120)
        return gcloud_env.Run(proc)

    def trainyard(self, *args):
        """The `trainyard` CLI, which must succeed."""
        run = self.run_tool([self.trainyard_path, *args], self.cli_env)
        self.assertEqual(run.rc, 0, run)
        return run

    def run_kubectl(self, *args, stdin=None):
        return self.run_tool([KUBECTL, *args], self.kube_env, stdin=stdin)
