#!/usr/bin/python3
"""The container tests' trainer (standard library only), the ENTRYPOINT of
localhost/trainyard-test/trainer:1. It prints which replica it is, from TF_CONFIG, and then does
what --mode says:
  print  nothing more;              mesh   reaches every other replica at its TF_CONFIG address;
  fail   exits 3 after a stderr line; sleep  sleeps --seconds;
  write  writes a file into --job-dir (a gs:// job dir, mapped to a mounted path);
  tune   reports 1 - (x - 0.3)^2 for --x through trainyard's hypertune module.
"""

import argparse
import json
import os
import socket
import sys
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--image", default="trainer")
parser.add_argument("--mode", default="print",
                    choices=["print", "mesh", "fail", "sleep", "write", "tune"])
parser.add_argument("--seconds", type=float, default=0)
parser.add_argument("--job-dir")
parser.add_argument("--x", type=float, default=0.0)
args, unknown = parser.parse_known_args()

tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
task = tf_config.get("task", {})
me = "%s %s" % (task.get("type"), task.get("index"))
print("replica %s image %s in container %s" % (me, args.image, os.path.exists("/run/.containerenv")),
      flush=True)
print("TF_CONFIG " + os.environ.get("TF_CONFIG", ""), flush=True)
print("argv %s" % json.dumps(sys.argv[1:]), flush=True)


def mesh():
    cluster = tf_config["cluster"]
    mine = cluster[task["type"]][task["index"]]
    peers = [a for members in cluster.values() for a in members if a != mine]
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    host, port = mine.rsplit(":", 1)
    server.bind((host, int(port)))
    server.listen(16)
    accepted = []

    def accept():
        while len(accepted) < len(peers):
            conn, _ = server.accept()
            accepted.append(conn.recv(64))
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    reached = 0
    deadline = time.monotonic() + 60
    for peer in peers:
        host, port = peer.rsplit(":", 1)
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((host, int(port)), timeout=2) as conn:
                    conn.sendall(me.encode())
                reached += 1
                break
            except OSError:
                time.sleep(0.1)
    while len(accepted) < len(peers) and time.monotonic() < deadline:
        time.sleep(0.05)
    print("reached %d of %d peers, reached by %d" % (reached, len(peers), len(accepted)),
          flush=True)


if args.mode == "mesh":
    mesh()
elif args.mode == "fail":
    print("boom: failing on purpose", file=sys.stderr, flush=True)
    sys.exit(3)
elif args.mode == "sleep":
    print("sleeping %s s" % args.seconds, flush=True)
    time.sleep(args.seconds)
elif args.mode == "write":
    with open(os.path.join(args.job_dir, "from-container.txt"), "w") as f:
        f.write("written by %s inside its container\n" % me)
elif args.mode == "tune":
    sys.path.insert(0, "/opt/trainyard/python")  # trainyard's hypertune, mounted read-only
    import hypertune  # noqa: E402
    value = 1 - (args.x - 0.3) ** 2
    hypertune.HyperTune().report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag="score", metric_value=value, global_step=1)
    print("reported score %f" % value, flush=True)
print("done", flush=True)
