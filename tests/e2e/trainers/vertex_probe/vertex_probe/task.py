"""Prints what a Vertex AI replica was given (one `KEY value` line each), reports `--lr` as the
hypertune metrics `accuracy` and `loss` when given one, and sleeps $PROBE_SLEEP seconds.

The replicas of a job meet before they end, so every replica has printed before the chief's exit
ends the job: each other replica listens at its own CLUSTER_SPEC address until the chief has
connected, and the chief connects to every peer (retrying while they start)."""

import json
import os
import socket
import sys
import time

MEET_TIMEOUT_S = 120

print("ARGS " + json.dumps(sys.argv[1:]), flush=True)
for name in ("CLUSTER_SPEC", "TF_CONFIG", "AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR",
             "AIP_TENSORBOARD_LOG_DIR", "CLOUD_ML_TRIAL_ID", "POOL_ENV"):
    print("%s %s" % (name, os.environ.get(name, "")), flush=True)
lr = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--lr=")]
if lr:
    import hypertune  # trainyard's, on the replica's PYTHONPATH

    reporter = hypertune.HyperTune()
    reporter.report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag="accuracy", metric_value=1 - abs(float(lr[0]) - 0.01),
        global_step=1)
    reporter.report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag="loss", metric_value=abs(float(lr[0]) - 0.01), global_step=1)
time.sleep(float(os.environ.get("PROBE_SLEEP", "0")))


def split(address):
    host, port = address.rsplit(":", 1)
    return host, int(port)


spec = json.loads(os.environ.get("CLUSTER_SPEC", "{}"))
task = spec.get("task", {})
cluster = spec.get("cluster", {})
if task.get("type") == "workerpool0":
    peers = [address for pool, addresses in cluster.items() if pool != "workerpool0"
             for address in addresses]
    deadline = time.monotonic() + MEET_TIMEOUT_S
    for peer in peers:
        while True:
            try:
                socket.create_connection(split(peer), timeout=5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit("peer %s never listened" % peer)
                time.sleep(0.2)
elif cluster:
    own = cluster[task["type"]][task["index"]]
    with socket.create_server(split(own)) as server:
        server.settimeout(MEET_TIMEOUT_S)
        server.accept()[0].close()
