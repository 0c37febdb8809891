"""What every trainer module shares: flags, TF_CONFIG, and the report in the job directory."""

import argparse
import json
import os
import sys

# The variables a replica's report keeps (docs/reference/ai-platform-training.md §7.2; trainyard's
# own).
REPORTED_VARIABLES = (
    "CLOUD_ML_JOB_ID",
    "CLUSTER_SPEC",
    "CUDA_VISIBLE_DEVICES",
    "STORAGE_EMULATOR_HOST",
    "TRAINYARD_EMULATED_ACCELERATORS",
    "TRAINYARD_JOB_DIR_URI",
    "SLURM_JOB_ID",  # set when the replica runs on Slurm (trainyard serve --backend slurm)
)


class Replica:
    """This process as a member of the job's cluster."""

    def __init__(self, argv=None):
        parser = argparse.ArgumentParser()
        parser.add_argument("--job-dir", required=True)
        parser.add_argument("--epochs", type=int, required=True)
        self.args = parser.parse_args(argv)
        self.tf_config = json.loads(os.environ["TF_CONFIG"])
        task = self.tf_config["task"]
        self.type = task["type"]
        self.index = task["index"]
        self.name = "%s-%d" % (self.type, self.index)
        self.job_dir = self.args.job_dir

    def fail(self, message):
        """Ends the process with status 1 and `message` as the last line of stderr."""
        sys.stderr.write("trainer: %s: %s\n" % (self.name, message))
        sys.exit(1)

    def path(self, *parts):
        return os.path.join(self.job_dir, *parts)

    def write(self, relative, text):
        """Writes a file of the job directory whole: readers never see part of it."""
        target = self.path(relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        temporary = "%s.%d.tmp" % (target, os.getpid())
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, target)

    def report(self):
        """Writes reports/<type>-<index>.json: what this replica was given."""
        seen = {
            "task": self.name,
            "pid": os.getpid(),
            "argv": sys.argv[1:],
            "cwd": os.getcwd(),
            "job_dir": self.job_dir,
            "epochs": self.args.epochs,
            "tf_config": self.tf_config,
            "env": {name: os.environ.get(name) for name in REPORTED_VARIABLES},
        }
        self.write(os.path.join("reports", self.name + ".json"), json.dumps(seen) + "\n")
