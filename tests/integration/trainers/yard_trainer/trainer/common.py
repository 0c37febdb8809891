"""What the test trainers share: the --job-dir flag and files the tests read."""
import argparse
import json
import os


def parse_args(*flags):
    """The --job-dir (created when missing) and the given extra string flags, as a namespace."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True)
    for flag, default in flags:
        parser.add_argument(flag, default=default)
    args, _ = parser.parse_known_args()
    os.makedirs(args.job_dir, exist_ok=True)
    return args


def write_json(path, value):
    """Writes `value` to `path` atomically, so a reader never sees half of it."""
    partial = path + ".partial"
    with open(partial, "w", encoding="utf-8") as out:
        json.dump(value, out)
    os.replace(partial, path)
