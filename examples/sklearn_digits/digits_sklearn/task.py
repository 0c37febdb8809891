"""Trains an SVC on scikit-learn's bundled 8x8 digits and reports its test accuracy.

One replica (scale tier BASIC). The 1,797 images are split into training and test sets with a fixed
seed, an SVC with the hyperparameters given as flags (`--C`, `--gamma`, `--kernel`: the names of
the parameters in hptuning_config.yaml, which AI Platform passes as `--C=0.5`) is fitted, and
<job-dir>/model.pkl (the pickled classifier) and <job-dir>/metrics.json are written. In a tuning
trial the accuracy is also reported through the hypertune metric file and the outputs go to
<job-dir>/<trial>/.

Run it locally: python3 -m digits_sklearn.task --job-dir /tmp/digits
"""

import argparse
import json
import pickle
import sys
import time

from sklearn.datasets import load_digits
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from digits_sklearn import metric_report, outputs

METRIC_TAG = "accuracy"  # hyperparameterMetricTag in hptuning_config.yaml


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
    trial = metric_report.trial_id()
    out = outputs.output_dir(args.job_dir, trial)
    model_path = outputs.write_bytes(out, "model.pkl", pickle.dumps(model))
    metrics_path = outputs.write_bytes(out, "metrics.json",
                                       json.dumps(metrics, indent=2).encode() + b"\n")
    print("trained an SVC (C=%g, gamma=%g, kernel=%s) on %d digits in %.2fs: test accuracy %.4f"
          % (args.C, args.gamma, args.kernel, metrics["train_examples"],
             metrics["train_seconds"], metrics["accuracy"]))
    print("wrote %s and %s" % (model_path, metrics_path))
    reported = metric_report.report({METRIC_TAG: metrics["accuracy"]})
    if reported:
        print("reported %s=%.4f for trial %s to %s" % (METRIC_TAG, metrics["accuracy"], trial,
                                                       reported))
    else:
        print("not a tuning trial: no hypertune metric reported")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
