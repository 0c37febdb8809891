"""Reports what trainyard gave this replica in <job-dir>/<type>-<index>.json, then acts its role:
the master waits until every replica of the cluster has reported and exits 0, the parameter
server runs until it is stopped, workers and evaluators finish."""
import json
import os
import sys
import time

from trainer import common

VARIABLES = [
    "TF_CONFIG", "CLUSTER_SPEC", "CLOUD_ML_JOB_ID", "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE",
    "RANK", "CUDA_VISIBLE_DEVICES", "TRAINYARD_EMULATED_ACCELERATORS", "STORAGE_EMULATOR_HOST",
    "TRAINYARD_JOB_DIR_URI",
]


def reports(job_dir):
    return [name for name in os.listdir(job_dir) if name.endswith(".json")]


def main():
    args = common.parse_args()
    spec = json.loads(os.environ["CLUSTER_SPEC"])
    task = spec["task"]
    common.write_json(
        os.path.join(args.job_dir, f"{task['type']}-{task['index']}.json"),
        {"pid": os.getpid(), "cwd": os.getcwd(),
         "env": {name: os.environ.get(name) for name in VARIABLES}})
    if task["type"] == "master":
        replicas = sum(len(addresses) for addresses in spec["cluster"].values())
        deadline = time.monotonic() + 120
        while len(reports(args.job_dir)) < replicas:
            if time.monotonic() > deadline:
                sys.exit(f"only {reports(args.job_dir)} of {replicas} replicas reported")
            time.sleep(0.05)
    elif task["type"] == "ps":
        while True:
            time.sleep(60)


if __name__ == "__main__":
    main()
