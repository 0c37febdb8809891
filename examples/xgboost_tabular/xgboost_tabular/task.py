"""Trains an XGBoost classifier on scikit-learn's bundled breast-cancer data set.

One replica (scale tier BASIC). The 569 tumours (30 numeric features, malignant or benign) are split
into training and test sets with a fixed seed; `--num_round` boosting rounds of trees of depth
`--max_depth` with learning rate `--eta` are trained, and <job-dir>/model.json (XGBoost's
`save_model` JSON) and <job-dir>/metrics.json (accuracy, AUC, log loss on the test set) are
written. In a tuning trial the three metrics are reported with the `hypertune` library
(`cloudml-hypertune`; trainyard ships a module of that name and API for its trials), so
hyperparameterMetricTag may be `auc`, `accuracy` or `logloss`, and the outputs go to
<job-dir>/<trial>/. Outside tuning the library is not needed.

Run it locally: python3 -m xgboost_tabular.task --job-dir /tmp/xgb
"""

import argparse
import json
import os
import sys
import tempfile
import time

import xgboost as xgb
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import accuracy_score, log_loss, roc_auc_score
from sklearn.model_selection import train_test_split

from xgboost_tabular import outputs


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
    """The trainer's flags; each also takes the dashed spelling (--max-depth)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job-dir", required=True, help="where model.json and metrics.json go")
    parser.add_argument("--max_depth", "--max-depth", type=int, default=3,
                        help="depth of each tree")
    parser.add_argument("--eta", type=float, default=0.1, help="learning rate (shrinkage)")
    parser.add_argument("--num_round", "--num-round", type=int, default=100,
                        help="boosting rounds (trees)")
    parser.add_argument("--test_size", "--test-size", type=float, default=0.25,
                        help="fraction of the examples held out for the test set")
    parser.add_argument("--seed", type=int, default=42, help="seed of the split and of XGBoost")
    return parser.parse_args(argv)


def split_data(test_size, seed):
    """(x_train, x_test, y_train, y_test): the breast-cancer data split stratified by class."""
    features, labels = load_breast_cancer(return_X_y=True)
    return train_test_split(features, labels, test_size=test_size, random_state=seed,
                            stratify=labels)


def booster_params(args):
    """XGBoost's parameters: binary logistic trees on one thread (a replica is one process)."""
    return {"objective": "binary:logistic", "max_depth": args.max_depth, "eta": args.eta,
            "eval_metric": ["logloss", "auc"], "nthread": 1, "seed": args.seed}


def train(args):
    """Trains the booster; returns (booster, metrics)."""
    x_train, x_test, y_train, y_test = split_data(args.test_size, args.seed)
    train_set = xgb.DMatrix(x_train, label=y_train)
    test_set = xgb.DMatrix(x_test, label=y_test)
    started = time.monotonic()
    booster = xgb.train(booster_params(args), train_set, num_boost_round=args.num_round,
                        evals=[(test_set, "test")], verbose_eval=False)
    seconds = time.monotonic() - started
    probabilities = booster.predict(test_set)
    metrics = {
        "accuracy": float(accuracy_score(y_test, probabilities > 0.5)),
        "auc": float(roc_auc_score(y_test, probabilities)),
        "logloss": float(log_loss(y_test, probabilities)),
        "train_examples": len(y_train),
        "test_examples": len(y_test),
        "train_seconds": round(seconds, 3),
        "params": {"max_depth": args.max_depth, "eta": args.eta, "num_round": args.num_round,
                   "test_size": args.test_size, "seed": args.seed},
    }
    return booster, metrics


def model_json(booster):
    """The booster as `save_model` writes it to a .json file."""
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "model.json")
        booster.save_model(path)
        with open(path, "rb") as f:
            return f.read()


def main(argv=None):
    """Trains, writes the model and metrics, and reports the metrics to hypertune."""
    args = parse_args(argv)
    booster, metrics = train(args)
    trial = trial_id()
    out = outputs.output_dir(args.job_dir, trial)
    model_path = outputs.write_bytes(out, "model.json", model_json(booster))
    metrics_path = outputs.write_bytes(out, "metrics.json",
                                       json.dumps(metrics, indent=2).encode() + b"\n")
    print("trained %d rounds (max_depth=%d, eta=%g) on %d examples in %.2fs: test accuracy "
          "%.4f, AUC %.4f, log loss %.4f"
          % (args.num_round, args.max_depth, args.eta, metrics["train_examples"],
             metrics["train_seconds"], metrics["accuracy"], metrics["auc"], metrics["logloss"]))
    print("wrote %s and %s" % (model_path, metrics_path))
    reported = report_metrics(
        {tag: metrics[tag] for tag in ("accuracy", "auc", "logloss")},
        global_step=args.num_round)
    if reported:
        print("reported accuracy, auc and logloss for trial %s to %s" % (trial, reported))
    else:
        print("not a tuning trial: no hypertune metric reported")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
