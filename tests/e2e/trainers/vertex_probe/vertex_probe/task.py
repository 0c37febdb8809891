"""Prints what a Vertex AI replica was given (one `KEY value` line each), reports `--lr` as the
hypertune metric `accuracy` when given one, and sleeps $PROBE_SLEEP seconds."""

import json
import os
import sys
import time

print("ARGS " + json.dumps(sys.argv[1:]), flush=True)
for name in ("CLUSTER_SPEC", "TF_CONFIG", "AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR",
             "AIP_TENSORBOARD_LOG_DIR", "CLOUD_ML_TRIAL_ID", "POOL_ENV"):
    print("%s %s" % (name, os.environ.get(name, "")), flush=True)
lr = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--lr=")]
if lr:
    import hypertune  # trainyard's, on the replica's PYTHONPATH

    hypertune.HyperTune().report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag="accuracy", metric_value=1 - abs(float(lr[0]) - 0.01),
        global_step=1)
time.sleep(float(os.environ.get("PROBE_SLEEP", "0")))
