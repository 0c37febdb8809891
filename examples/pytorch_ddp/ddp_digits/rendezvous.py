"""Joining the process group: a TCPStore on MASTER_ADDR:MASTER_PORT (served by rank 0), then
torch.distributed with gloo (CPU) or NCCL (GPU)."""

import logging
import time
from datetime import timedelta

import torch.distributed as dist

TIMEOUT = timedelta(seconds=60)  # rendezvous and every collective
BIND_RETRY_S = 60  # how long rank 0 retries a port still in use (a previous incarnation's)
BIND_RETRY_INTERVAL_S = 0.5

log = logging.getLogger("ddp_digits")


def _master_store(cluster):
    """Rank 0's TCPStore server, retrying while the port is still in use."""
    deadline = time.monotonic() + BIND_RETRY_S
    while True:
        try:
            return dist.TCPStore(cluster.master_addr, cluster.master_port, cluster.world_size,
                                 is_master=True, timeout=TIMEOUT, wait_for_workers=False)
        except RuntimeError as error:
            if "Address already in use" not in str(error) or time.monotonic() > deadline:
                raise
            log.warning("port %d is still in use; retrying", cluster.master_port)
            time.sleep(BIND_RETRY_INTERVAL_S)


def join(cluster, backend):
    """Initializes the default process group of `cluster` with `backend`."""
    if cluster.world_size == 1:
        store = dist.HashStore()
    elif cluster.rank == 0:
        store = _master_store(cluster)
    else:
        store = dist.TCPStore(cluster.master_addr, cluster.master_port, cluster.world_size,
                              is_master=False, timeout=TIMEOUT)
    dist.init_process_group(backend, store=store, rank=cluster.rank,
                            world_size=cluster.world_size, timeout=TIMEOUT)


def leave():
    if dist.is_initialized():
        dist.destroy_process_group()
