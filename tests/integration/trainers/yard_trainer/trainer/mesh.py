"""Every replica listens on its own cluster address and connects to every other one over TCP
(CLUSTER_SPEC: the TF_CONFIG members plus evaluators), then reports in <job-dir>/<type>-<index>.json
what trainyard gave it and whom it reached. The master exits 0 once every replica has reported
(and says so in <job-dir>/done); workers and evaluators keep answering until then, so late peers
can still reach them; the parameter server runs until it is stopped."""
import json
import os
import socket
import sys
import threading
import time

from trainer import common

VARIABLES = [
    "TF_CONFIG", "CLUSTER_SPEC", "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
    "CUDA_VISIBLE_DEVICES", "SLURMD_NODENAME", "SLURM_JOB_ID", "SLURM_PROCID",
]


def serve(listener):
    while True:
        connection, _ = listener.accept()
        connection.sendall(b"hello\n")
        connection.close()


def reach(address, deadline):
    host, port = address.rsplit(":", 1)
    while True:
        try:
            with socket.create_connection((host, int(port)), timeout=2) as connection:
                return connection.recv(6) == b"hello\n"
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)


def main():
    args = common.parse_args()
    spec = json.loads(os.environ["CLUSTER_SPEC"])
    task = spec["task"]
    me = spec["cluster"][task["type"]][task["index"]]
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", int(me.rsplit(":", 1)[1])))
    listener.listen(16)
    threading.Thread(target=serve, args=(listener,), daemon=True).start()
    print(f"{task['type']} {task['index']} listening on {me}", flush=True)

    peers = [address for addresses in spec["cluster"].values() for address in addresses]
    deadline = time.monotonic() + 120
    reached = {address: reach(address, deadline) for address in peers if address != me}
    common.write_json(
        os.path.join(args.job_dir, f"{task['type']}-{task['index']}.json"),
        {"pid": os.getpid(), "cwd": os.getcwd(), "reached": reached,
         "env": {name: os.environ.get(name) for name in VARIABLES}})
    print(f"reached {sum(reached.values())} of {len(reached)} peers", flush=True)
    if task["type"] == "ps":
        while True:
            time.sleep(60)
    everyone_reported = os.path.join(args.job_dir, "done")
    while True:
        done = len([name for name in os.listdir(args.job_dir) if name.endswith(".json")])
        if task["type"] == "master" and done >= len(peers):
            with open(everyone_reported, "w", encoding="utf-8"):
                return
        if task["type"] != "master" and os.path.exists(everyone_reported):
            return
        if time.monotonic() > deadline:
            sys.exit(f"only {done} of {len(peers)} replicas reported")
        time.sleep(0.05)


if __name__ == "__main__":
    main()
