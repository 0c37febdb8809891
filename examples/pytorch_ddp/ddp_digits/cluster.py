"""This replica's place in the job: rank, world size and the master's address.

trainyard (like AI Platform Training for PyTorch) gives the master and the workers RANK,
WORLD_SIZE, MASTER_ADDR and MASTER_PORT: the master is rank 0 and worker i is rank i + 1. Without
them the same facts are read from TF_CONFIG (the chief/master and workers of its cluster); without
either the trainer runs alone (e.g. `gcloud ai-platform local train`).
"""

import collections
import json
import os

Cluster = collections.namedtuple("Cluster", "rank world_size master_addr master_port")

PYTORCH_VARIABLES = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
ALONE = Cluster(rank=0, world_size=1, master_addr="127.0.0.1", master_port=0)


def from_environment(env=None):
    """The Cluster of this replica, or None for a replica that is no trainer (a parameter server
    or an evaluator, which get no PyTorch variables)."""
    env = os.environ if env is None else env
    if all(env.get(name) for name in PYTORCH_VARIABLES):
        return Cluster(rank=int(env["RANK"]), world_size=int(env["WORLD_SIZE"]),
                       master_addr=env["MASTER_ADDR"], master_port=int(env["MASTER_PORT"]))
    tf_config = json.loads(env.get("TF_CONFIG") or "{}")
    return from_tf_config(tf_config)


def from_tf_config(tf_config):
    """The Cluster that TF_CONFIG describes (None for a replica that is no trainer)."""
    cluster = tf_config.get("cluster") or {}
    primary = "chief" if "chief" in cluster else "master"
    if primary not in cluster:
        return ALONE
    task = tf_config.get("task") or {}
    role, index = task.get("type", primary), int(task.get("index", 0))
    workers = cluster.get("worker", [])
    if role in ("chief", "master"):
        rank = 0
    elif role == "worker":
        rank = index + 1
    else:
        return None
    host, _, port = cluster[primary][0].rpartition(":")
    return Cluster(rank=rank, world_size=1 + len(workers), master_addr=host,
                   master_port=int(port))


def replica_name(rank):
    """How trainyard names the replica of a rank: "master 0" or "worker i"."""
    return "master 0" if rank == 0 else "worker %d" % (rank - 1)


def use_cuda(cuda_available, env=None):
    """Whether to train on the GPU (NCCL): CUDA works and CUDA_VISIBLE_DEVICES does not hide
    every device (trainyard's emulated accelerators give it as "")."""
    env = os.environ if env is None else env
    return bool(cuda_available) and env.get("CUDA_VISIBLE_DEVICES", "0").strip() != ""
