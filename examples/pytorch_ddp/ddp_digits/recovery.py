"""Surviving the loss of a replica.

When a replica dies (a maintenance event, a crash, a kill), trainyard (like AI Platform Training)
restarts that replica alone. The others see their next collective fail (gloo: the connection to
the dead peer is closed; otherwise the 60 s timeout). Such a survivor re-executes itself: the same
interpreter, module and arguments in the same process (so its supervisor still sees one child),
which then joins a fresh rendezvous with the restarted replica and resumes from the newest
checkpoint. The number of re-executions is bounded so that a real bug still fails the job.
"""

import logging
import os
import re
import sys
import time

MAX_REEXECS = 5
REEXECS_VARIABLE = "DDP_DIGITS_REEXECS"
WORKER_DELAY_S = 1.0  # lets rank 0 notice too and close its old store before workers reconnect

# What torch.distributed's errors say when a peer went away or a rendezvous failed.
_DISTRIBUTED_ERROR = re.compile(
    r"gloo|nccl|c10d|connection (closed|reset|refused)|broken pipe|timed out|timeout|"
    r"socket|store|peer", re.IGNORECASE)

log = logging.getLogger("ddp_digits")


def reexecs():
    """How many times this replica has re-executed itself since trainyard started it."""
    try:
        return int(os.environ.get(REEXECS_VARIABLE, "0"))
    except ValueError:
        return 0


def is_distributed_error(error):
    """Whether `error` is a failed collective or rendezvous rather than a bug of the trainer."""
    return isinstance(error, RuntimeError) and bool(_DISTRIBUTED_ERROR.search(str(error)))


def may_reexec(error):
    return is_distributed_error(error) and reexecs() < MAX_REEXECS


def _close_on_exec():
    """Marks every descriptor but stdin, stdout and stderr close-on-exec, so the new image does
    not inherit the old store's listening socket (rank 0 binds the same port again)."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2:
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass  # the directory's own descriptor, already closed


def reexec(rank, module="ddp_digits.task"):
    """Replaces this process with a fresh `python -m module <same args>`; does not return."""
    count = reexecs() + 1
    log.warning("re-executing (%d of at most %d) to rejoin the job", count, MAX_REEXECS)
    if rank != 0:
        time.sleep(WORKER_DELAY_S)
    for handler in logging.getLogger().handlers + log.handlers:
        handler.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    _close_on_exec()
    env = dict(os.environ)
    env[REEXECS_VARIABLE] = str(count)
    os.execve(sys.executable, [sys.executable, "-m", module, *sys.argv[1:]], env)
