"""The benchmark's trivial trainer: prints one line and exits.

The line carries the wall-clock time at which the module started running (after the interpreter
started), so the driver can tell how long the launch took:

    bench-trainer chief-0 started 1763750000.123456

With a TF_CONFIG whose cluster has more than one task (a distributed trainyard job, or `gcloud
ai-platform local train --distributed`), the replicas also meet before they exit, so that a
distributed job ends only after every replica ran: the primary (master or chief) listens on its
own cluster address and exits once every other task in the cluster has connected and said its
name; the others connect (retrying until the primary listens), send their name and exit.
Evaluators are not in the cluster and just print. Any failure exits non-zero.
"""

import json
import os
import socket
import sys
import time

STARTED = time.time()
PRIMARY_ROLES = ("master", "chief")
MEET_TIMEOUT_S = 60.0


def primary_address(cluster):
    for role in PRIMARY_ROLES:
        if cluster.get(role):
            host, port = cluster[role][0].rsplit(":", 1)
            return host, int(port)
    raise SystemExit(f"bench-trainer: no master or chief in the cluster {cluster}")


def serve_meeting(address, expected):
    """The primary: accept `expected` connections, each sending one name."""
    deadline = time.monotonic() + MEET_TIMEOUT_S
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(64)
        met = []
        while len(met) < expected:
            listener.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                raise SystemExit(f"bench-trainer: only {met} of {expected} tasks met the primary")
            with conn:
                conn.settimeout(5)
                met.append(conn.recv(256).decode())
    print(f"bench-trainer met {len(met)} tasks: {' '.join(sorted(met))}", flush=True)


def join_meeting(address, name):
    """A non-primary task: connect (the primary may not listen yet) and send our name."""
    deadline = time.monotonic() + MEET_TIMEOUT_S
    while True:
        try:
            with socket.create_connection(address, timeout=5) as conn:
                conn.sendall(name.encode())
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def main():
    config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    task = config.get("task") or {}
    cluster = config.get("cluster") or {}
    role = task.get("type") or "master"
    index = int(task.get("index") or 0)
    name = f"{role}-{index}"
    print(f"bench-trainer {name} started {STARTED:.6f}", flush=True)
    tasks = sum(len(addresses) for addresses in cluster.values())
    if tasks <= 1 or role == "evaluator":
        return 0
    address = primary_address(cluster)
    if role in PRIMARY_ROLES:
        serve_meeting(address, tasks - 1)
    else:
        join_meeting(address, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
