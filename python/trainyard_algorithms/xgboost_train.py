"""The built-in XGBoost algorithm (single replica), as AI Platform Training runs
gcr.io/cloud-ml-algos/boosted_trees (docs/reference/ai-platform-training.md §12), on Debian's
python3-xgboost.

    python -m trainyard_algorithms.xgboost_train --preprocess \\
        --training_data_path=gs://b/data.csv --objective=binary:logistic --job-dir DIR

The arguments, their types and defaults are the server's table
(src/algorithms/data/builtin_algorithms.json); the server checks them at submit, this program
again (runner.py, which it shares with the other tabular algorithms, as it shares reading the CSV
data through trainyard's bucket store and --preprocess, tabular.py). It trains and writes under the
job dir (or <job dir>/<trial> in a tuning trial):

    model/model.bst           the Booster, loadable with xgboost.Booster(model_file=...)
    artifacts/metadata.json   the preprocessing: column types and statistics, the split's lines
    artifacts/metrics.json    the evaluation metrics on the validation and test rows

model/ appears whole or not at all: it is written beside and renamed into place. In a tuning trial
the metric named by CLOUD_ML_HP_METRIC_TAG (rmse, mae, logloss, error, accuracy, auc, …; the
eval metric for the default tag) on the validation rows is reported through hypertune
(docs/reference/ai-platform-training.md §9.2). A data error exits 1 with a message naming the file
and line.
"""

import json
import os
import sys

from trainyard_algorithms import runner, tabular

ALGORITHM = 'xgboost'
# Arguments that are not XGBoost parameters (the last three: the distributed algorithm's).
DATA_ARGUMENTS = {'preprocess', 'training_data_path', 'validation_data_path', 'test_data_path',
                  'validation_split', 'test_split', 'num_round', 'model_saving_period',
                  'eval_log_period', 'silent'}


def xgboost_params(given, objective):
    """The XGBoost parameters: the objective and what was given (XGBoost's defaults are the
    documented ones). reg:linear is XGBoost 0.81's name of reg:squarederror."""
    params = {name: value for name, value in given.items() if name not in DATA_ARGUMENTS}
    params['objective'] = 'reg:squarederror' if objective == 'reg:linear' else objective
    params.setdefault('nthread', os.cpu_count() or 1)
    return params


def default_metric(objective):
    """XGBoost's evaluation metric for an objective."""
    if objective.startswith('binary:'):
        return 'error' if objective == 'binary:hinge' else 'logloss'
    if objective.startswith('multi:'):
        return 'merror' if objective == 'multi:softmax' else 'mlogloss'
    if objective.startswith('rank:'):
        return 'map' if objective == 'rank:map' else 'ndcg'
    return {'count:poisson': 'poisson-nloglik', 'reg:gamma': 'gamma-nloglik',
            'reg:tweedie': 'tweedie-nloglik', 'survival:cox': 'cox-nloglik'}.get(objective, 'rmse')


def evaluate(booster, matrix, labels, objective, eval_metric):
    """The metrics of one data set: XGBoost's eval metric, and those the objective allows."""
    import numpy as np
    metrics = {}
    line = booster.eval(matrix, name='data')  # "[0]\tdata-logloss:0.1"
    for item in line.split('\t')[1:]:
        key, _, value = item.partition(':')
        metrics[key[len('data-'):]] = float(value)
    predictions = booster.predict(matrix)
    y = np.asarray(labels)
    if objective in ('binary:logistic', 'binary:logitraw', 'binary:hinge', 'reg:logistic'):
        threshold = 0.0 if objective == 'binary:logitraw' else 0.5
        metrics.update(runner.binary_metrics(y, predictions, threshold))
    elif objective.startswith('multi:'):
        predicted = predictions if predictions.ndim == 1 else predictions.argmax(axis=1)
        metrics['accuracy'] = float((predicted == y).mean())
        metrics['merror'] = 1.0 - metrics['accuracy']
    else:
        metrics.update(runner.regression_metrics(y, predictions))
    return metrics


def to_matrices(preprocessor, sets):
    """{name: (DMatrix, labels)} of the (name, rows) sets that have rows."""
    import numpy as np
    import xgboost
    matrices = {}
    for name, rows in sets:
        if rows:
            features, labels = preprocessor.transform(rows)
            matrices[name] = (xgboost.DMatrix(np.asarray(features, dtype=float),
                                              label=np.asarray(labels, dtype=float),
                                              missing=float('nan')), labels)
    return matrices


# The single-replica algorithm logs the evaluation about this many times (and after the last
# round): evaluating the validation rows every round cost 7 % of a 68,000-row job's time
# (bench/algorithms/, 2026-11-29), which a progress line every round does not repay.
EVALUATION_LINES = 20


def log_period(num_round):
    """The single-replica algorithm's logging period: about EVALUATION_LINES lines a job."""
    return max(1, -(-num_round // EVALUATION_LINES))


def evaluation_log(matrices, num_round, period):
    """An XGBoost callback that evaluates the validation set (the training set when there is
    none) every `period` rounds, from the first, and after the last, and prints XGBoost's line
    ("[9]\tvalidation-logloss:0.0478") from replica 0. Every replica evaluates the same rounds:
    in a collective the metric is reduced across them."""
    import xgboost
    from xgboost import collective
    name = 'validation' if 'validation' in matrices else 'training'
    evals = [(matrices[name][0], name)]

    class EvaluationLog(xgboost.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            if epoch % period == 0 or epoch == num_round - 1:
                line = model.eval_set(evals, epoch)
                if collective.get_rank() == 0:
                    print(line, flush=True)
            return False

    return EvaluationLog()


def boost(params, matrices, num_round, uri, period, callbacks=()):
    """The Booster of `num_round` rounds on matrices['training'], logging the eval metric every
    `period` rounds (evaluation_log; none when `period` is 0 or less); an XGBoost refusal is a
    DataError naming the data."""
    import xgboost
    callbacks = list(callbacks)
    if period > 0:
        callbacks.append(evaluation_log(matrices, num_round, period))
    try:
        return xgboost.train(params, matrices['training'][0], num_round, verbose_eval=False,
                             callbacks=callbacks)
    except xgboost.core.XGBoostError as error:
        raise tabular.DataError('XGBoost cannot train on {}: {}'.format(
            uri, str(error).strip().splitlines()[0])) from None


def finish(booster, matrices, values, metadata, job_dir):
    """Evaluates every set, writes model/model.bst and artifacts/ under the output dir and, in a
    tuning trial, reports the metric on the validation set (else the training set)."""
    import xgboost
    objective = values['objective']
    eval_metric = metadata['eval_metric']
    metrics = {name: evaluate(booster, matrix, labels, objective, eval_metric)
               for name, (matrix, labels) in matrices.items()}
    for name, values_of in metrics.items():
        print('{} metrics: {}'.format(name, json.dumps(values_of, sort_keys=True)), flush=True)
    metadata.update(objective=objective, xgboost_version=xgboost.__version__)
    out = runner.write_outputs(
        job_dir, lambda directory: booster.save_model(os.path.join(directory, 'model.bst')),
        metadata, dict(metrics, eval_metric=eval_metric))
    print('Model written to {}'.format(os.path.join(out, 'model', 'model.bst')), flush=True)
    runner.report_metric(metrics.get('validation', metrics['training']), eval_metric,
                         values['num_round'])


def train(values, given, job_dir):
    import xgboost

    training, validation, test, uri = runner.load_sets(values)
    preprocessor = tabular.Preprocessor(training, uri, values['preprocess'])
    objective = values['objective']
    eval_metric = values.get('eval_metric') or default_metric(objective)
    params = xgboost_params(given, objective)
    params['eval_metric'] = eval_metric
    matrices = to_matrices(preprocessor, (('training', training), ('validation', validation),
                                          ('test', test)))
    print('Training XGBoost {} on {} rows ({} features), validating on {}, testing on {}'.format(
        xgboost.__version__, len(training), len(preprocessor.feature_names()), len(validation),
        len(test)), flush=True)
    booster = boost(params, matrices, values['num_round'], uri, log_period(values['num_round']))
    metadata = preprocessor.metadata()
    metadata.update(
        training_data_path=uri, validation_split=values['validation_split'],
        test_split=values['test_split'], seed=values.get('seed', 0), eval_metric=eval_metric,
        rows={name: tabular.line_numbers(rows) for name, rows in
              (('training', training), ('validation', validation), ('test', test))})
    finish(booster, matrices, values, metadata, job_dir)


def main(argv):
    return runner.main(argv, ALGORITHM, train)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
