"""Trains an SVC on scikit-learn's bundled 8x8 digits and reports its test accuracy.

One replica (scale tier BASIC). The 1,797 images are split into training and test sets with a fixed
seed, an SVC with the hyperparameters given as flags (`--C`, `--gamma`, `--kernel`: the names of
the parameters in hptuning_config.yaml, which AI Platform passes as `--C=0.5`) is fitted, and
<job-dir>/model.pkl (the pickled classifier) and <job-dir>/metrics.json are written. In a tuning
trial the accuracy is also reported with the `hypertune` library (`cloudml-hypertune`; trainyard
ships a module of that name and API for its trials) and the outputs go to <job-dir>/<trial>/.
Outside tuning the library is not needed.

Run it locally: python3 -m digits_sklearn.task --job-dir /tmp/digits
"""

import argparse
import json
import os
import pickle
import sys
import time

from sklearn.datasets import load_digits
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from digits_sklearn import outputs

METRIC_TAG = "accuracy"  # hyperparameterMetricTag in hptuning_config.yaml


def trial_id():
    """The trial number ("1", "2", …) of a tuning trial, or None outside tuning: the service sets
    CLOUD_ML_TRIAL_ID and TF_CONFIG's task.trial."""
    trial = os.environ.get("CLOUD_ML_TRIAL_ID")
    if trial:
        return trial
    tf_config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    return tf_config.get("task", {}).get("trial") or None


def report_metrics(metrics, global_step=None):
    """Reports each value of `metrics` (tag -> number) with hypertune when this is a tuning trial
    (CLOUD_ML_HP_METRIC_FILE or CLOUD_ML_TRIAL_ID set), one entry per tag; returns the metric
    file's path, or None outside tuning, where hypertune is neither imported nor needed (it would
    write the shared /tmp/hypertune)."""
    if not (os.environ.get("CLOUD_ML_HP_METRIC_FILE") or os.environ.get("CLOUD_ML_TRIAL_ID")):
        return None
    try:
        import hypertune  # pylint: disable=import-outside-toplevel
    except ImportError as error:
        raise SystemExit("this is a tuning trial but the hypertune module is missing: install "
                         "cloudml-hypertune, or run under trainyard, which ships it") from error
    reporter = hypertune.HyperTune()
    for tag, value in metrics.items():
        reporter.report_hyperparameter_tuning_metric(hyperparameter_metric_tag=tag,
                                                     metric_value=value, global_step=global_step)
    return reporter.metric_path


def parse_args(argv=None):
    """The trainer's flags (AI Platform appends --job-dir to the job's args)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job-dir", required=True, help="where model.pkl and metrics.json go")
    parser.add_argument("--C", type=float, default=10.0, help="SVC penalty (larger: less slack)")
    parser.add_argument("--gamma", type=float, default=0.001,
                        help="RBF/poly kernel coefficient, for pixels in 0..16")
    parser.add_argument("--kernel", choices=("rbf", "poly", "linear"), default="rbf")
    parser.add_argument("--test-size", type=float, default=0.25,
                        help="fraction of the images held out for the test set")
    parser.add_argument("--seed", type=int, default=42, help="seed of the train/test split")
    return parser.parse_args(argv)


def split_digits(test_size, seed):
    """(x_train, x_test, y_train, y_test): the digits split stratified by class."""
    images, labels = load_digits(return_X_y=True)
    return train_test_split(images, labels, test_size=test_size, random_state=seed,
                            stratify=labels)


def train(args):
    """Fits the SVC; returns (model, metrics)."""
    x_train, x_test, y_train, y_test = split_digits(args.test_size, args.seed)
    started = time.monotonic()
    model = SVC(C=args.C, gamma=args.gamma, kernel=args.kernel).fit(x_train, y_train)
    seconds = time.monotonic() - started
    metrics = {
        "accuracy": float(accuracy_score(y_test, model.predict(x_test))),
        "train_accuracy": float(accuracy_score(y_train, model.predict(x_train))),
        "train_examples": len(y_train),
        "test_examples": len(y_test),
        "support_vectors": int(model.n_support_.sum()),
        "train_seconds": round(seconds, 3),
        "params": {"C": args.C, "gamma": args.gamma, "kernel": args.kernel,
                   "test_size": args.test_size, "seed": args.seed},
    }
    return model, metrics


def main(argv=None):
    """Trains, writes the model and metrics, and reports the accuracy to hypertune."""
    args = parse_args(argv)
    model, metrics = train(args)
    trial = trial_id()
    out = outputs.output_dir(args.job_dir, trial)
    model_path = outputs.write_bytes(out, "model.pkl", pickle.dumps(model))
    metrics_path = outputs.write_bytes(out, "metrics.json",
                                       json.dumps(metrics, indent=2).encode() + b"\n")
    print("trained an SVC (C=%g, gamma=%g, kernel=%s) on %d digits in %.2fs: test accuracy %.4f"
          % (args.C, args.gamma, args.kernel, metrics["train_examples"],
             metrics["train_seconds"], metrics["accuracy"]))
    print("wrote %s and %s" % (model_path, metrics_path))
    reported = report_metrics({METRIC_TAG: metrics["accuracy"]})
    if reported:
        print("reported %s=%.4f for trial %s to %s" % (METRIC_TAG, metrics["accuracy"], trial,
                                                       reported))
    else:
        print("not a tuning trial: no hypertune metric reported")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
