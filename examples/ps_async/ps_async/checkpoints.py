"""Checkpoints under <job-dir>/checkpoints/: what the master writes and the evaluators read.

    ckpt-<global step, 9 digits>.npz   the full W (pulled from every parameter server) and the step
    final.json                         {"global_step", "checkpoint"}: written last, after the
                                       final checkpoint, so a reader that sees it also sees that

Every file appears whole: it is written under a temporary name and renamed.
"""

import json
import os
import re

import numpy as np

_NAME = re.compile(r"^ckpt-(\d{9})\.npz$")
FINAL = "final.json"


def directory(job_dir):
    """<job-dir>/checkpoints."""
    return os.path.join(job_dir, "checkpoints")


def name(step):
    """The file name of the checkpoint at global step `step`."""
    return "ckpt-%09d.npz" % step


def _replace(path, write):
    """Calls write(file) on `path`.tmp, then renames it to `path`."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        write(f)
    os.replace(tmp, path)


def save(job_dir, step, weights):
    """Writes the checkpoint of global step `step` (once); returns its path."""
    os.makedirs(directory(job_dir), exist_ok=True)
    path = os.path.join(directory(job_dir), name(step))
    if not os.path.exists(path):
        _replace(path, lambda f: np.savez(f, weights=weights, global_step=step))
    return path


def save_final(job_dir, step, weights):
    """Writes the last checkpoint and then final.json naming it."""
    save(job_dir, step, weights)
    marker = json.dumps({"global_step": step, "checkpoint": name(step)}).encode("utf-8")
    _replace(os.path.join(directory(job_dir), FINAL), lambda f: f.write(marker))


def listed(job_dir):
    """[(step, path)] of the checkpoints written so far, oldest first."""
    try:
        names = os.listdir(directory(job_dir))
    except FileNotFoundError:
        return []
    found = [(int(m.group(1)), n) for m, n in ((_NAME.match(n), n) for n in names) if m]
    return [(step, os.path.join(directory(job_dir), n)) for step, n in sorted(found)]


def final(job_dir):
    """The contents of final.json, or None while training goes on."""
    try:
        with open(os.path.join(directory(job_dir), FINAL), encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def load(path):
    """(global step, W) of a checkpoint file."""
    with np.load(path) as data:
        return int(data["global_step"]), data["weights"]
