"""What every built-in tabular algorithm's program shares: its arguments, its data, its outputs.

Each program (xgboost_train, linear_learner) is `main(argv, <its name>, <its train function>)`:

- the arguments are the algorithm's entry of the server's table
  (src/algorithms/data/builtin_algorithms.json, copied next to this file by the build), checked
  again here as the server checks them at submit (`parse_args`);
- the data are the CSV files of --training_data_path, --validation_data_path and
  --test_data_path, with --preprocess's documented splits (`load_sets`, over tabular.py);
- the outputs go under the job dir, or <job dir>/<trial> in a tuning trial
  (docs/reference/ai-platform-training.md §9.1):
  model/ appears whole or not at all (`write_outputs`), artifacts/ holds metadata.json and
  metrics.json, and a trial reports the metric named by CLOUD_ML_HP_METRIC_TAG through hypertune
  (`report_metric`, docs/reference/ai-platform-training.md §9.2).

A usage or data error exits 1 with a message naming the argument, or the file and line.
"""

import json
import os
import shutil
import sys

from trainyard_algorithms import tabular

DEFAULT_METRIC_TAG = 'training/hptuning/metric'


class UsageError(Exception):
    """An argument the table does not allow."""


def load_spec(name):
    """The algorithm's entry of builtin_algorithms.json: beside this file once built, else in
    the source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, 'builtin_algorithms.json'),
                 os.path.join(here, '..', '..', 'src', 'algorithms', 'data',
                              'builtin_algorithms.json')):
        if os.path.exists(path):
            with open(path, encoding='utf-8') as table:
                doc = json.load(table)
            return _resolved(doc, name)
    raise UsageError('builtin_algorithms.json is missing beside {}'.format(here))


def _resolved(doc, name):
    """The entry `name`, with `extends`: its own arguments, then the other algorithm's, less those
    `without` names and its own (as src/algorithms/algorithms.cc reads the table)."""
    spec = next(a for a in doc['algorithms'] if a['name'] == name)
    extends = spec.get('extends')
    if not extends:
        return spec
    skip = set(extends.get('without', [])) | {a['name'] for a in spec['arguments']}
    base = _resolved(doc, extends['algorithm'])
    return dict(spec, arguments=spec['arguments'] +
                [a for a in base['arguments'] if a['name'] not in skip])


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
    if kind == 'int_list':
        try:
            items = [convert(dict(argument, type='int'), item) for item in text.split(',')]
        except UsageError:
            raise UsageError('--{} must be comma-separated integers in range, such as "{}"; got '
                             '"{}"'.format(name, argument.get('default', '1,2'), text)) from None
        return items
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
    """(values given, with the defaults, by name; those given; the job dir)."""
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
            raise UsageError('Unknown argument --{} for the built-in {} algorithm'
                             .format(name, spec['display_name']))
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
    if (spec.get('max_split_sum') and
            values['validation_split'] + values['test_split'] > spec['max_split_sum'] + 1e-9):
        raise UsageError('validation_split + test_split must be at most {:.2f}'
                         .format(spec['max_split_sum']))
    return values, given, job_dir


def load_sets(values):
    """(training, validation, test) rows and the URI of the training data."""
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


def binary_metrics(labels, scores, threshold):
    """accuracy, error and (with both classes) auc of scores against 0/1 labels."""
    import numpy as np
    y = np.asarray(labels, dtype=float)
    predicted = (np.asarray(scores, dtype=float) > threshold).astype(float)
    metrics = {'accuracy': float((predicted == y).mean())}
    metrics['error'] = 1.0 - metrics['accuracy']
    area = auc(y, scores)
    if area is not None:
        metrics['auc'] = area
    return metrics


def regression_metrics(labels, predictions):
    """rmse and mae."""
    import numpy as np
    y = np.asarray(labels, dtype=float)
    p = np.asarray(predictions, dtype=float)
    return {'rmse': float(np.sqrt(((p - y) ** 2).mean())), 'mae': float(np.abs(p - y).mean())}


def output_dir(job_dir):
    """The job dir, or <job dir>/<trial> in a tuning trial (docs/reference/ai-platform-training.md
    §9.1)."""
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


def write_outputs(job_dir, save_model, metadata, metrics):
    """model/ (what `save_model(directory)` writes there) and artifacts/ (metadata.json,
    metrics.json) under the output dir, each written beside and renamed into place; the dir."""
    out = output_dir(job_dir)
    os.makedirs(out, exist_ok=True)
    staging = os.path.join(out, '.model.tmp-{}'.format(os.getpid()))
    artifacts = os.path.join(out, '.artifacts.tmp-{}'.format(os.getpid()))
    for directory in (staging, artifacts):
        os.makedirs(directory)
    save_model(staging)
    tabular.write_json(os.path.join(artifacts, 'metadata.json'), metadata)
    tabular.write_json(os.path.join(artifacts, 'metrics.json'), metrics)
    replace_dir(artifacts, os.path.join(out, 'artifacts'))
    replace_dir(staging, os.path.join(out, 'model'))
    return out


def report_metric(metrics, fallback, step):
    """The tuning metric, in a trial only (docs/reference/ai-platform-training.md §9.2): the tag's,
    else `fallback`'s."""
    if not os.environ.get('CLOUD_ML_HP_METRIC_FILE'):
        return
    import hypertune
    tag = os.environ.get('CLOUD_ML_HP_METRIC_TAG', '') or DEFAULT_METRIC_TAG
    name = tag if tag in metrics else fallback
    if name not in metrics:
        print('hypertune: no metric {} for this objective'.format(tag), file=sys.stderr)
        return
    if tag != name and tag != DEFAULT_METRIC_TAG:
        print('hypertune: no metric {}; reporting {}'.format(tag, name), file=sys.stderr)
    hypertune.HyperTune().report_hyperparameter_tuning_metric(
        hyperparameter_metric_tag=tag, metric_value=metrics[name], global_step=step)


def main(argv, name, train):
    """Runs `train(values, given, job_dir)` of algorithm `name`; the exit status."""
    try:
        values, given, job_dir = parse_args(argv, load_spec(name))
        if not job_dir:
            raise UsageError('--job-dir is required: the model is written there')
        train(values, given, job_dir)
    except (UsageError, tabular.DataError) as error:
        print('ERROR: {}'.format(error), file=sys.stderr, flush=True)
        return 1
    return 0
