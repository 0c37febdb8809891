"""Data-parallel training of a small CNN on scikit-learn's 8x8 digits across a trainyard cluster.

The master (rank 0) and every worker run this module; torch.distributed joins them (gloo on CPU,
NCCL when the replica has GPUs) through MASTER_ADDR/MASTER_PORT, and DistributedDataParallel
averages their gradients, each rank training on its DistributedSampler shard. Every
--checkpoint-every steps rank 0 writes a checkpoint under <job-dir>/checkpoints/; at start every
rank resumes from the newest one. A replica that survives the loss of another re-executes itself
and rejoins (see recovery.py), so a killed replica, restarted by trainyard, costs only the steps
since the last checkpoint. At the end rank 0 writes <job-dir>/model.pt and <job-dir>/metrics.json.

Usage: python3 -m ddp_digits.task --job-dir DIR [--epochs N] [--batch-size N] [--lr X]
                                  [--checkpoint-every STEPS]
"""

import argparse
import itertools
import json
import logging
import os
import random
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from ddp_digits import checkpoint, cluster as cluster_lib, data, model as model_lib, recovery
from ddp_digits import rendezvous

log = logging.getLogger("ddp_digits")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job-dir", required=True,
                        help="where checkpoints, model.pt and metrics.json go")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=32, help="per replica")
    parser.add_argument("--lr", type=float, default=0.003, help="Adam's learning rate")
    parser.add_argument("--checkpoint-every", type=int, default=50, help="steps")
    parser.add_argument("--keep-checkpoints", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


def setup_logging(rank):
    """Python logging to stderr, "LEVEL:ddp_digits:..." (trainyard reads the level)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(
        "%%(levelname)s:ddp_digits:%s: %%(message)s" % cluster_lib.replica_name(rank)))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def write_pid(job_dir, rank):
    """<job-dir>/pids/<rank> holds this process's id (the same across re-executions)."""
    directory = os.path.join(job_dir, "pids")
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, ".%d.tmp" % rank)
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("%d\n" % os.getpid())
    os.replace(tmp, os.path.join(directory, str(rank)))


def agree_on_start(directory, device):
    """The step of rank 0's newest checkpoint, broadcast so that every rank loads the same."""
    step = torch.tensor([checkpoint.newest_step(directory)], dtype=torch.long, device=device)
    dist.broadcast(step, src=0)
    return int(step.item())


@torch.no_grad()
def evaluate(net, dataset, device):
    """Accuracy of `net` on `dataset`."""
    net.eval()
    images, labels = dataset.tensors
    predicted = net(images.to(device)).argmax(dim=1).cpu()
    net.train()
    return float((predicted == labels).float().mean())


def global_mean(total, count, device):
    """Σ total / Σ count over every rank."""
    sums = torch.tensor([total, count], dtype=torch.float64, device=device)
    dist.all_reduce(sums)
    return float(sums[0] / max(sums[1], 1.0))


def resume(directory, net, optimizer, device, total_steps):
    """Loads the newest checkpoint (the one rank 0 sees) into `net` and `optimizer`; returns its
    step, 0 when there is none."""
    step = agree_on_start(directory, device)
    if step:
        checkpoint.restore(directory, step, net, optimizer)
        log.info("resumed from checkpoint step %d of %d", step, total_steps)
    return step


def train_step(ddp, optimizer, images, labels):
    """One optimizer step on a batch (DDP averages the gradients of every rank); the loss."""
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(ddp(images), labels)
    loss.backward()
    optimizer.step()
    return float(loss)


def train(args, cluster, device):
    """Trains to the end, resuming from the newest checkpoint; returns the model and metrics."""
    seed_everything(args.seed)
    train_set, test_set = data.digits_datasets()
    sampler = DistributedSampler(train_set, num_replicas=cluster.world_size, rank=cluster.rank,
                                 shuffle=True, seed=args.seed)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
    steps_per_epoch = len(loader)
    total_steps = args.epochs * steps_per_epoch
    net = model_lib.digits_cnn().to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    directory = checkpoint.checkpoint_dir(args.job_dir)
    log.info("%d training images, %d steps per epoch, %d steps", len(train_set),
             steps_per_epoch, total_steps)
    step = resumed_from = resume(directory, net, optimizer, device, total_steps)
    ddp = DistributedDataParallel(net, device_ids=[device.index] if device.type == "cuda" else None)
    started = time.monotonic()
    for epoch in range(step // steps_per_epoch, args.epochs):
        sampler.set_epoch(epoch)  # the same shuffle whenever the epoch is (re)run
        loss_sum, seen = 0.0, 0
        # The batches of this epoch after those done before the checkpoint.
        for images, labels in itertools.islice(loader, step - epoch * steps_per_epoch, None):
            loss = train_step(ddp, optimizer, images.to(device), labels.to(device))
            loss_sum += loss * len(labels)
            seen += len(labels)
            step += 1
            if cluster.rank == 0 and step % args.checkpoint_every == 0 and step < total_steps:
                checkpoint.save(directory, step, epoch, net, optimizer, args.keep_checkpoints)
                log.info("checkpoint at step %d", step)
        progress = "epoch %d/%d (step %d): train loss %.4f" % (
            epoch + 1, args.epochs, step, global_mean(loss_sum, seen, device))
        if cluster.rank == 0:
            progress += ", test accuracy %.4f" % evaluate(net, test_set, device)
        log.info("%s", progress)
    dist.barrier()
    return net, {"test_accuracy": evaluate(net, test_set, device), "steps": total_steps,
                 "epochs": args.epochs, "world_size": cluster.world_size,
                 "resumed_from": resumed_from, "reexecs": recovery.reexecs(),
                 "backend": dist.get_backend(), "train_seconds": time.monotonic() - started}


def write_outputs(job_dir, net, metrics):
    checkpoint.atomic_save(net.state_dict(), os.path.join(job_dir, "model.pt"))
    tmp = os.path.join(job_dir, ".metrics.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, os.path.join(job_dir, "metrics.json"))


def pick_device():
    """This replica's GPU (LOCAL_RANK among the visible ones) when it has one, else the CPU."""
    if not cluster_lib.use_cuda(torch.cuda.is_available()):
        return torch.device("cpu")
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(device)
    return device


def run(args, cluster):
    """Joins the job, trains, and (rank 0) writes the outputs."""
    device = pick_device()
    backend = "nccl" if device.type == "cuda" else "gloo"
    log.info("joining %d replicas at %s:%d with %s (pid %d)", cluster.world_size,
             cluster.master_addr, cluster.master_port, backend, os.getpid())
    rendezvous.join(cluster, backend)
    net, metrics = train(args, cluster, device)
    if cluster.rank == 0:
        write_outputs(args.job_dir, net, metrics)
        log.info("done: test accuracy %.4f after %d steps (resumed from step %d); wrote %s",
                 metrics["test_accuracy"], metrics["steps"], metrics["resumed_from"],
                 os.path.join(args.job_dir, "metrics.json"))
    rendezvous.leave()


def main(argv=None):
    args = parse_args(argv)
    cluster = cluster_lib.from_environment()
    if cluster is None:
        print("this replica is no trainer of the data-parallel job (a parameter server or an "
              "evaluator): nothing to do", flush=True)
        return
    setup_logging(cluster.rank)
    torch.set_num_threads(1)
    os.makedirs(args.job_dir, exist_ok=True)
    write_pid(args.job_dir, cluster.rank)
    try:
        run(args, cluster)
    except RuntimeError as error:
        if not recovery.may_reexec(error):
            raise
        lines = str(error).strip().splitlines() or [type(error).__name__]
        log.warning("lost the job's other replicas: %s", lines[-1])
        recovery.reexec(cluster.rank)


if __name__ == "__main__":
    main()
