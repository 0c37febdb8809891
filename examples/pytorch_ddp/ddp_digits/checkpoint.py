"""Checkpoints under <job-dir>/checkpoints/: ckpt-<step>.pt, written atomically, newest few kept.

A checkpoint holds everything needed to continue exactly where training stopped: the model's and
the optimizer's state, the epoch and global step, and the random number generators' states.
"""

import os
import random
import re

import numpy as np
import torch

_NAME = re.compile(r"^ckpt-(\d{8})\.pt$")


def checkpoint_dir(job_dir):
    """Where the checkpoints of a job dir live."""
    return os.path.join(job_dir, "checkpoints")


def list_checkpoints(directory):
    """[(step, path)] of the complete checkpoints in `directory`, oldest first."""
    if not os.path.isdir(directory):
        return []
    found = []
    for name in os.listdir(directory):
        match = _NAME.match(name)
        if match:
            found.append((int(match.group(1)), os.path.join(directory, name)))
    return sorted(found)


def newest_step(directory):
    """The step of the newest checkpoint in `directory`, or 0 when there is none."""
    found = list_checkpoints(directory)
    return found[-1][0] if found else 0


def path_of(directory, step):
    return os.path.join(directory, "ckpt-%08d.pt" % step)


def atomic_save(obj, path):
    """torch.save to a temporary file next to `path`, then rename it over `path`: a reader (or a
    restart after a kill mid-write) sees the old file or the new one, never half of one."""
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def rng_state():
    """The states of Python's, numpy's and torch's generators."""
    return {"python": random.getstate(), "numpy": np.random.get_state(),
            "torch": torch.get_rng_state()}


def set_rng_state(state):
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])


def save(directory, step, epoch, model, optimizer, keep):
    """Writes the checkpoint of `step` and deletes all but the newest `keep`; returns its path."""
    os.makedirs(directory, exist_ok=True)
    path = path_of(directory, step)
    atomic_save({"step": step, "epoch": epoch, "model": model.state_dict(),
                 "optimizer": optimizer.state_dict(), "rng": rng_state()}, path)
    for _, old in list_checkpoints(directory)[:-keep]:
        try:
            os.remove(old)
        except FileNotFoundError:
            pass
    return path


def restore(directory, step, model, optimizer):
    """Loads the checkpoint of `step` into `model` and `optimizer` and the generators; returns
    its epoch."""
    state = torch.load(path_of(directory, step), map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    set_rng_state(state["rng"])
    return state["epoch"]
