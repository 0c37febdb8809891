"""Who this replica is and where the others are, from TF_CONFIG and CLUSTER_SPEC.

TF_CONFIG's `cluster` names the primary "chief" (runtime versions >= 2.1) or "master", and lists
"worker" and "ps" addresses ("host:port"); evaluators are never in it, but get TF_CONFIG with
task type "evaluator". CLUSTER_SPEC (AI Platform's other variable) always says "master" and also
lists the evaluators, which is how the master learns how many evaluations to wait for.
"""

import json
import os
from dataclasses import dataclass, field
from typing import List


@dataclass
class Cluster:
    """This replica's role ("master", "worker", "ps" or "evaluator"), its index and the peers."""

    role: str
    index: int
    workers: List[str] = field(default_factory=list)
    ps: List[str] = field(default_factory=list)
    evaluators: int = 0

    @property
    def name(self):
        """The replica's name in logs and push counts, e.g. "worker-1"."""
        return "%s-%d" % (self.role, self.index)


def split_address(address):
    """("host", port) of a "host:port" address."""
    host, _, port = address.rpartition(":")
    return host, int(port)


def _evaluator_count(tf_config, cluster_spec):
    """Evaluators listed in CLUSTER_SPEC, else TF_CONFIG.job.evaluator_count, else 0."""
    listed = cluster_spec.get("cluster", {}).get("evaluator")
    if listed is not None:
        return len(listed)
    return int(tf_config.get("job", {}).get("evaluator_count", 0) or 0)


def from_environment(environ=None):
    """The Cluster described by TF_CONFIG (and CLUSTER_SPEC) in `environ` (default os.environ).

    A replica without TF_CONFIG is a lone master, which cannot train in this scheme: the caller
    reports that.
    """
    environ = os.environ if environ is None else environ
    tf_config = json.loads(environ.get("TF_CONFIG") or "{}")
    cluster_spec = json.loads(environ.get("CLUSTER_SPEC") or "{}")
    cluster = tf_config.get("cluster", {})
    task = tf_config.get("task", {})
    role = task.get("type") or "master"
    if role == "chief":
        role = "master"
    return Cluster(role=role, index=int(task.get("index", 0)),
                   workers=list(cluster.get("worker", [])), ps=list(cluster.get("ps", [])),
                   evaluators=_evaluator_count(tf_config, cluster_spec))
