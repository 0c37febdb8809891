"""hypertune: report hyperparameter-tuning metrics to trainyard.

This is trainyard's reimplementation of Google's `cloudml-hypertune` package (import name
`hypertune`, version 0.1.0), which cannot be installed where trainyard runs. It has the same API
and writes the same file (docs/reference/ai-platform-training.md §9.2), so trainers written for AI
Platform Training run
unchanged:

    import hypertune

    hpt = hypertune.HyperTune()
    hpt.report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag='val_accuracy', metric_value=0.912, global_step=500)

`HyperTune()` reads `CLOUD_ML_HP_METRIC_FILE` (default `/tmp/hypertune/output.metrics`, whose
directory it creates) and `CLOUD_ML_TRIAL_ID` (default 0). Every report appends an entry to the
last 100 it keeps and rewrites the whole file, one JSON object a line, keys sorted, every value a
string except the float `timestamp` (epoch seconds):

    {"checkpoint_path": "", "global_step": "500", "timestamp": 1700000000.25, "trial": "2",
     "val_accuracy": "0.912"}

The one deliberate difference from the library: the file is rewritten atomically (a temporary
file in the same directory, then os.replace), so trainyard, which reads it while the trainer
runs, never sees a half-written file. The library's module-level names are kept, but all of it
lives in this one file (the library's `hypertune.hypertune` submodule does not exist here).
Python 3.7+, standard library only.
"""

import collections
import json
import os
import time
import uuid

_DEFAULT_HYPERPARAMETER_METRIC_TAG = 'training/hptuning/metric'
_DEFAULT_METRIC_PATH = '/tmp/hypertune/output.metrics'
_MAX_NUM_METRIC_ENTRIES_TO_PRESERVE = 100

__all__ = ['HyperTune']


class HyperTune(object):
    """Reports hyperparameter-tuning metrics through the metric file trainyard reads."""

    def __init__(self):
        """Resolves the metric file and trial id from the environment, as the library does."""
        self.metric_path = os.environ.get('CLOUD_ML_HP_METRIC_FILE', _DEFAULT_METRIC_PATH)
        if not os.path.exists(os.path.dirname(self.metric_path)):
            os.makedirs(os.path.dirname(self.metric_path))

        self.trial_id = os.environ.get('CLOUD_ML_TRIAL_ID', 0)
        self.metrics_queue = collections.deque(maxlen=_MAX_NUM_METRIC_ENTRIES_TO_PRESERVE)

    def _dump_metrics_to_file(self):
        """Rewrites the metric file with the kept entries, replacing it atomically."""
        directory, name = os.path.split(self.metric_path)
        temporary = os.path.join(directory,
                                 '.{}.{}.{}.tmp'.format(name, os.getpid(), uuid.uuid4().hex))
        try:
            with open(temporary, 'x') as metric_file:
                for metric in self.metrics_queue:
                    metric_file.write(json.dumps(metric, sort_keys=True) + '\n')
            os.replace(temporary, self.metric_path)
        except BaseException:
            try:
                os.remove(temporary)
            except OSError:
                pass
            raise

    def report_hyperparameter_tuning_metric(self,
                                            hyperparameter_metric_tag,
                                            metric_value,
                                            global_step=None,
                                            checkpoint_path=''):
        """Reports one value of the hyperparameter-tuning metric.

        Args:
          hyperparameter_metric_tag: the metric's name; it should match the job's
            `hyperparameterMetricTag`. Empty means 'training/hptuning/metric'.
          metric_value: float, the metric's value.
          global_step: int, the training step the value belongs to (None: 0).
          checkpoint_path: the checkpoint a later trial could warm-start from.
        """
        metric_value = float(metric_value)
        metric_tag = _DEFAULT_HYPERPARAMETER_METRIC_TAG
        if hyperparameter_metric_tag:
            metric_tag = hyperparameter_metric_tag
        metric_body = {
            'timestamp': time.time(),
            'trial': str(self.trial_id),
            metric_tag: str(metric_value),
            'global_step': str(int(global_step) if global_step else 0),
            'checkpoint_path': checkpoint_path,
        }
        self.metrics_queue.append(metric_body)
        self._dump_metrics_to_file()
