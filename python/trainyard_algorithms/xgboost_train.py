"""The built-in XGBoost algorithm (single replica), as AI Platform Training runs
gcr.io/cloud-ml-algos/boosted_trees (reference §12), on Debian's python3-xgboost.

    python -m trainyard_algorithms.xgboost_train --preprocess \\
        --training_data_path=gs://b/data.csv --objective=binary:logistic --job-dir DIR

The arguments, their types and defaults are the server's table
(src/algorithms/data/builtin_algorithms.json, copied next to this file by the build); the server
checks them at submit, this program again. It reads the CSV data through trainyard's bucket store
(tabular.py), trains, and writes under the job dir (or <job dir>/<trial> in a tuning trial):

    model/model.bst           the Booster, loadable with xgboost.Booster(model_file=...)
    artifacts/metadata.json   the preprocessing: column types and statistics, the split's lines
    artifacts/metrics.json    the evaluation metrics on the validation and test rows

model/ appears whole or not at all: it is written beside and renamed into place. In a tuning trial
the metric named by CLOUD_ML_HP_METRIC_TAG (rmse, mae, logloss, error, accuracy, auc, …; the
eval metric for the default tag) on the validation rows is reported through hypertune
(reference §9.2). A data error exits 1 with a message naming the file and line.
"""

import json
import math
import os
import shutil
import sys

from trainyard_algorithms import tabular

ALGORITHM = 'xgboost'
DEFAULT_METRIC_TAG = 'training/hptuning/metric'
# Arguments that are not XGBoost parameters.
DATA_ARGUMENTS = {'preprocess', 'training_data_path', 'validation_data_path', 'test_data_path',
                  'validation_split', 'test_split', 'num_round'}


class UsageError(Exception):
    """An argument the table does not allow."""


def load_spec():
    """The algorithm's entry of builtin_algorithms.json: beside this file once built, else in
    the source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, 'builtin_algorithms.json'),
                 os.path.join(here, '..', '..', 'src', 'algorithms', 'data',
                              'builtin_algorithms.json')):
        if os.path.exists(path):
            with open(path, encoding='utf-8') as table:
                doc = json.load(table)
            return next(a for a in doc['algorithms'] if a['name'] == ALGORITHM)
    raise UsageError('builtin_algorithms.json is missing beside {}'.format(here))


def convert(argument, text):
    """`text` as the argument's type, checked against its range."""
    kind = argument['type']
    name = argument['name']
    if kind == 'bool':
        if text.lower() not in ('true', 'false', '1', '0'):
            raise UsageError('--{} is a flag; got "{}"'.format(name, text))
        return text.lower() in ('true', '1')
    if kind in ('string', 'path'):
        return text
    if kind == 'enum':
        if text not in argument['values']:
            raise UsageError('--{} must be one of {}; got "{}"'
                             .format(name, ', '.join(argument['values']), text))
        return text
    try:
        value = int(text) if kind == 'int' else float(text)
    except ValueError:
        raise UsageError('--{} must be {}; got "{}"'.format(
            name, 'an integer' if kind == 'int' else 'a number', text)) from None
    low, high = argument.get('min'), argument.get('max')
    if ((low is not None and (value < low or (argument.get('exclusive_min') and value == low))) or
            (high is not None and
             (value > high or (argument.get('exclusive_max') and value == high)))):
        raise UsageError('--{} is out of range; got {}'.format(name, text))
    return value


def parse_args(argv, spec):
    """(values given, with the defaults, by name; the job dir)."""
    arguments = {a['name']: a for a in spec['arguments']}
    given = {}
    job_dir = None
    i = 0
    while i < len(argv):
        text = argv[i]
        i += 1
        if not text.startswith('--'):
            raise UsageError('"{}" is not a --name=value argument'.format(text))
        name, equals, value = text[2:].partition('=')
        if name in ('job-dir', 'job_dir'):
            if not equals:
                if i >= len(argv):
                    raise UsageError('--job-dir needs a value')
                value = argv[i]
                i += 1
            job_dir = value
            continue
        if name not in arguments:
            raise UsageError('Unknown argument --{} for the built-in XGBoost algorithm'
                             .format(name))
        argument = arguments[name]
        if not equals:
            if argument['type'] == 'bool':
                value = 'true'
            elif i < len(argv) and not argv[i].startswith('--'):
                value = argv[i]
                i += 1
            else:
                raise UsageError('--{} needs a value'.format(name))
        given[name] = convert(argument, value)
    for argument in spec['arguments']:
        if argument.get('required') and argument['name'] not in given:
            raise UsageError('--{} is required'.format(argument['name']))
    values = {a['name']: convert(a, a['default']) for a in spec['arguments'] if 'default' in a}
    values.update(given)
    if values['validation_split'] + values['test_split'] > spec['max_split_sum'] + 1e-9:
        raise UsageError('validation_split + test_split must be at most {:.2f}'
                         .format(spec['max_split_sum']))
    return values, given, job_dir


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


def auc(labels, scores):
    """The area under the ROC curve (ties share their average rank); None with one class."""
    import numpy as np
    labels = np.asarray(labels)
    scores = np.asarray(scores, dtype=float)
    positives = int((labels == 1).sum())
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        return None
    order = np.argsort(scores, kind='mergesort')
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    start = 0
    while start < len(scores):
        end = start
        while end + 1 < len(scores) and sorted_scores[end + 1] == sorted_scores[start]:
            end += 1
        ranks[order[start:end + 1]] = (start + end) / 2.0 + 1
        start = end + 1
    return float((ranks[labels == 1].sum() - positives * (positives + 1) / 2.0) /
                 (positives * negatives))


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
        predicted = (predictions > threshold).astype(float)
        metrics['accuracy'] = float((predicted == y).mean())
        metrics['error'] = 1.0 - metrics['accuracy']
        area = auc(y, predictions)
        if area is not None:
            metrics['auc'] = area
    elif objective.startswith('multi:'):
        predicted = predictions if predictions.ndim == 1 else predictions.argmax(axis=1)
        metrics['accuracy'] = float((predicted == y).mean())
        metrics['merror'] = 1.0 - metrics['accuracy']
    else:
        metrics['rmse'] = float(np.sqrt(((predictions - y) ** 2).mean()))
        metrics['mae'] = float(np.abs(predictions - y).mean())
    return metrics


def output_dir(job_dir):
    """The job dir, or <job dir>/<trial> in a tuning trial (reference §9.1)."""
    trial = os.environ.get('CLOUD_ML_TRIAL_ID', '')
    if trial and os.environ.get('CLOUD_ML_HP_METRIC_FILE'):
        return os.path.join(job_dir, trial)
    return job_dir


def replace_dir(temporary, final):
    """Puts `temporary` at `final`, an earlier `final` removed after."""
    old = None
    if os.path.exists(final):
        old = '{}.old-{}'.format(final, os.getpid())
        os.rename(final, old)
    os.rename(temporary, final)
    if old:
        shutil.rmtree(old, ignore_errors=True)


def report_metric(metrics, eval_metric, num_round):
    """The tuning metric, in a trial only (reference §9.2)."""
    if not os.environ.get('CLOUD_ML_HP_METRIC_FILE'):
        return
    import hypertune
    tag = os.environ.get('CLOUD_ML_HP_METRIC_TAG', '') or DEFAULT_METRIC_TAG
    name = tag if tag in metrics else eval_metric
    if name not in metrics:
        print('hypertune: no metric {} for this objective'.format(tag), file=sys.stderr)
        return
    if tag != name and tag != DEFAULT_METRIC_TAG:
        print('hypertune: no metric {}; reporting {}'.format(tag, name), file=sys.stderr)
    hypertune.HyperTune().report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag=tag, metric_value=metrics[name], global_step=num_round)


def load_sets(values):
    """(training, validation, test) rows and the URI each came from."""
    preprocess = values['preprocess']
    sets = {}
    for name in ('training', 'validation', 'test'):
        uri = values.get(name + '_data_path')
        if not uri:
            continue
        rows = tabular.read_csv(uri)
        if preprocess:
            rows = tabular.drop_incomplete(rows)
            if not rows:
                raise tabular.DataError('{}: every row has more than 10% of its values missing'
                                        .format(uri))
        else:
            tabular.check_targets(rows, uri)
        sets[name] = (rows, uri)
    training, uri = sets['training']
    widths = {len(rows[0][1]) for rows, _ in sets.values()}
    if len(widths) > 1:
        raise tabular.DataError('the training, validation and test files have different numbers '
                                'of columns')
    validation = sets.get('validation', ([], None))[0]
    test = sets.get('test', ([], None))[0]
    if preprocess:  # the documented splits, of what is not given as its own file
        v_split = 0.0 if 'validation' in sets else values['validation_split']
        t_split = 0.0 if 'test' in sets else values['test_split']
        training, split_validation, split_test = tabular.split(training, v_split, t_split,
                                                               values.get('seed', 0))
        validation = validation or split_validation
        test = test or split_test
    if not training:
        raise tabular.DataError('{}: no training rows are left after the splits'.format(uri))
    return training, validation, test, uri


def train(values, given, job_dir):
    import numpy as np
    import xgboost

    training, validation, test, uri = load_sets(values)
    preprocessor = tabular.Preprocessor(training, uri, values['preprocess'])
    objective = values['objective']
    eval_metric = values.get('eval_metric') or default_metric(objective)
    params = xgboost_params(given, objective)
    params['eval_metric'] = eval_metric
    matrices = {}
    for name, rows in (('training', training), ('validation', validation), ('test', test)):
        if rows:
            features, labels = preprocessor.transform(rows)
            matrices[name] = (xgboost.DMatrix(np.asarray(features, dtype=float),
                                              label=np.asarray(labels, dtype=float),
                                              missing=float('nan')), labels)
    evals = [(matrices[name][0], name) for name in ('training', 'validation') if name in matrices]
    print('Training XGBoost {} on {} rows ({} features), validating on {}, testing on {}'.format(
        xgboost.__version__, len(training), len(preprocessor.feature_names()), len(validation),
        len(test)), flush=True)
    try:
        booster = xgboost.train(params, matrices['training'][0], values['num_round'],
                                evals=evals, verbose_eval=True)
    except xgboost.core.XGBoostError as error:
        raise tabular.DataError('XGBoost cannot train on {}: {}'.format(
            uri, str(error).strip().splitlines()[0])) from None
    metrics = {name: evaluate(booster, matrix, labels, objective, eval_metric)
               for name, (matrix, labels) in matrices.items()}
    for name, values_of in metrics.items():
        print('{} metrics: {}'.format(name, json.dumps(values_of, sort_keys=True)), flush=True)

    out = output_dir(job_dir)
    os.makedirs(out, exist_ok=True)
    staging = os.path.join(out, '.model.tmp-{}'.format(os.getpid()))
    artifacts = os.path.join(out, '.artifacts.tmp-{}'.format(os.getpid()))
    for directory in (staging, artifacts):
        os.makedirs(directory)
    booster.save_model(os.path.join(staging, 'model.bst'))
    metadata = preprocessor.metadata()
    metadata.update(
        training_data_path=uri, validation_split=values['validation_split'],
        test_split=values['test_split'], seed=values.get('seed', 0), objective=objective,
        xgboost_version=xgboost.__version__,
        rows={name: [number for number, _ in rows] for name, rows in
              (('training', training), ('validation', validation), ('test', test))})
    tabular.write_json(os.path.join(artifacts, 'metadata.json'), metadata)
    tabular.write_json(os.path.join(artifacts, 'metrics.json'),
                       dict(metrics, eval_metric=eval_metric))
    replace_dir(artifacts, os.path.join(out, 'artifacts'))
    replace_dir(staging, os.path.join(out, 'model'))
    print('Model written to {}'.format(os.path.join(out, 'model', 'model.bst')), flush=True)
    report_metric(metrics.get('validation', metrics['training']), eval_metric, values['num_round'])


def main(argv):
    try:
        values, given, job_dir = parse_args(argv, load_spec())
        if not job_dir:
            raise UsageError('--job-dir is required: the model is written there')
        train(values, given, job_dir)
    except (UsageError, tabular.DataError) as error:
        print('ERROR: {}'.format(error), file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
