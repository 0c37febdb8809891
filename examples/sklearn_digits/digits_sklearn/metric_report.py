"""Reports a hyperparameter-tuning metric the way AI Platform's `cloudml-hypertune` does.

The service tells a tuning trial where to write its metric with CLOUD_ML_HP_METRIC_FILE (and its
trial number with CLOUD_ML_TRIAL_ID); the trainer rewrites that file on every report with one JSON
object a line, keys sorted: the metric tag and the global step and trial as strings, the timestamp
as epoch seconds (reference §9.2). When the `hypertune` module is importable (the
`cloudml-hypertune` package, or one trainyard ships) it is used; otherwise `MetricFile` below writes
the same file.
"""

import collections
import json
import os
import time

DEFAULT_TAG = "training/hptuning/metric"
DEFAULT_PATH = "/tmp/hypertune/output.metrics"
MAX_ENTRIES = 100


def is_tuning_trial():
    """True when the service runs this replica as a tuning trial (it then sets these)."""
    return any(os.environ.get(name) for name in ("CLOUD_ML_HP_METRIC_FILE",
                                                 "CLOUD_ML_HP_METRIC_TAG"))


def trial_id():
    """The trial number ("1", "2", …) of a tuning trial, or None outside tuning."""
    trial = os.environ.get("CLOUD_ML_TRIAL_ID")
    if trial:
        return trial
    tf_config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    return tf_config.get("task", {}).get("trial") or None


class MetricFile:
    """The metric file of `cloudml-hypertune`, written without it."""

    def __init__(self):
        self.metric_path = os.environ.get("CLOUD_ML_HP_METRIC_FILE") or DEFAULT_PATH
        os.makedirs(os.path.dirname(self.metric_path) or ".", exist_ok=True)
        self.trial_id = os.environ.get("CLOUD_ML_TRIAL_ID", "0")
        self.entries = collections.deque(maxlen=MAX_ENTRIES)

    def report_hyperparameter_tuning_metric(self, hyperparameter_metric_tag, metric_value,
                                            global_step=None):
        """Appends one measurement and rewrites the file with the last MAX_ENTRIES of them."""
        self.entries.append({
            hyperparameter_metric_tag or DEFAULT_TAG: str(float(metric_value)),
            "global_step": str(int(global_step) if global_step else 0),
            "timestamp": time.time(),
            "trial": str(self.trial_id),
        })
        # Written beside the file and renamed over it, so a reader never sees half a file.
        partial = self.metric_path + ".partial"
        with open(partial, "w", encoding="utf-8") as f:
            for entry in self.entries:
                f.write(json.dumps(entry, sort_keys=True) + "\n")
        os.replace(partial, self.metric_path)


def reporter():
    """`hypertune.HyperTune()` when that module is installed, else a MetricFile. (A directory
    named hypertune in the working directory imports as an empty namespace package: that is not
    the library.)"""
    try:
        import hypertune  # pylint: disable=import-outside-toplevel
    except ImportError:
        return MetricFile()
    library = getattr(hypertune, "HyperTune", None)
    return library() if library else MetricFile()


def report(metrics, global_step=None):
    """Reports each value of `metrics` (tag -> number) when this is a tuning trial, one entry per
    tag, so that the study's hyperparameterMetricTag may name any of them. Returns the metric
    file's path, or None when this is not a trial (the library would then write the shared
    /tmp/hypertune)."""
    if not is_tuning_trial():
        return None
    writer = reporter()
    for tag, value in metrics.items():
        writer.report_hyperparameter_tuning_metric(hyperparameter_metric_tag=tag,
                                                   metric_value=value, global_step=global_step)
    return writer.metric_path
