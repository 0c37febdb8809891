"""Writes the trainer's outputs under --job-dir.

trainyard hands the trainer a local directory (a gs://bucket/path job dir is mapped to a directory
whose files are the bucket's objects), as does `gcloud ai-platform local train --job-dir DIR`. On
Google's service the job dir is a gs:// URI; TensorFlow, which the runtime images carry, writes
there through `tf.io.gfile`.
"""

import os


def output_dir(job_dir, trial=None):
    """Where this run's files go: the job dir, or its subdirectory `trial` for a tuning trial (the
    service gives every trial the same job dir)."""
    return job_dir.rstrip("/") + "/" + trial if trial else job_dir


def write_bytes(directory, name, data):
    """Writes `data` to `directory`/`name`; returns that path or URI."""
    if directory.startswith("gs://"):
        try:
            from tensorflow.io import gfile  # pylint: disable=import-outside-toplevel
        except ImportError as error:
            raise SystemExit("--job-dir %s needs TensorFlow to write to Cloud Storage; give a "
                             "local directory instead" % directory) from error
        uri = directory.rstrip("/") + "/" + name
        gfile.makedirs(directory)
        with gfile.GFile(uri, "wb") as f:
            f.write(data)
        return uri
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name)
    with open(path + ".partial", "wb") as f:
        f.write(data)
    os.replace(path + ".partial", path)
    return path
