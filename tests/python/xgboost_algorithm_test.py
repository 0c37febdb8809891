#!/usr/bin/python3
"""python/trainyard_algorithms: the built-in XGBoost algorithm's program, as replicas run it.

Runs the copy beside the built trainyard ($TY_PYTHON_DIR, with the argument table the build puts
there; else python/ in the source tree) in-process with a temporary bucket store
(TRAINYARD_GCS_MOUNT). One row per rule: each malformed CSV fails naming the file and line and
leaves no model/; --preprocess drops rows with more than 10 % missing, fills numeric columns with
the training mean, one-hot encodes categorical ones and splits as documented; a tuning trial writes
under <job-dir>/<trial> and reports its metric through hypertune
(docs/reference/ai-platform-training.md §9.2).
Needs Debian's python3-xgboost and python3-numpy.
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.environ.get('TY_PYTHON_DIR') or os.path.join(HERE, '..', '..', 'python')
sys.path.insert(0, PYTHON_DIR)

from trainyard_algorithms import tabular, xgboost_train  # noqa: E402

ROWS = 50


def good_csv(rows=ROWS):
    """A separable binary problem: the target is whether x1 > 0.5."""
    lines = []
    for i in range(rows):
        x1 = (i * 37 % rows) / rows
        lines.append('{},{:.3f},{:.3f},{}'.format(int(x1 > 0.5), x1, (i % 7) / 7.0,
                                                  'abc'[i % 3]))
    return '\n'.join(lines) + '\n'


class AlgorithmTestCase(unittest.TestCase):
    """A temporary bucket store (gs://b/ is self.mount/b) and a job dir in it; `program` is the
    algorithm's module (linear_learner_test.py's cases run the linear learner's)."""

    program = xgboost_train

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='ty-algorithm-test-')
        self.mount = os.path.join(self.tmp, 'buckets')
        os.makedirs(os.path.join(self.mount, 'b'))
        self.job_dir = os.path.join(self.mount, 'b', 'out')
        self.env = {k: os.environ.get(k) for k in
                    ('TRAINYARD_GCS_MOUNT', 'CLOUD_ML_TRIAL_ID', 'CLOUD_ML_HP_METRIC_FILE',
                     'CLOUD_ML_HP_METRIC_TAG')}
        for name in self.env:
            os.environ.pop(name, None)
        os.environ['TRAINYARD_GCS_MOUNT'] = self.mount

    def tearDown(self):
        for name, value in self.env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(self.tmp)

    def put(self, name, data):
        path = os.path.join(self.mount, 'b', name)
        with open(path, 'wb') as out:
            out.write(data if isinstance(data, bytes) else data.encode())

    def run_main(self, *args):
        """(exit status, stderr) of the program with `args` and --job-dir."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = self.program.main(list(args) + ['--job-dir', self.job_dir])
        return rc, err.getvalue()


class DataErrors(AlgorithmTestCase):
    """Each malformed file FAILS with the file, the line and what is wrong; no model/."""

    CASES = [
        ('header', 'label,x,y\n1,2,3\n0,4,5\n', 'gs://b/data.csv line 1: looks like a header row'),
        ('non_numeric_target', '1,2,3\n0,4,5\nyes,6,7\n',
         'gs://b/data.csv line 3: the target (first column) "yes" is not a number'),
        ('ragged', '1,2,3\n0,4,5\n1,6\n',
         'gs://b/data.csv line 3: 2 columns, but the first line has 3'),
        ('empty', '', 'gs://b/data.csv: the file is empty'),
        ('blank_lines_only', '\n\n', 'gs://b/data.csv: the file is empty'),
        ('not_utf8', b'1,2,3\n0,\xff,5\n', 'gs://b/data.csv line 2: not UTF-8 text'),
        ('one_column', '1\n0\n', 'gs://b/data.csv line 1: one column'),
    ]

    def test_each_malformed_file(self):
        for name, data, message in self.CASES:
            with self.subTest(name):
                self.put('data.csv', data)
                rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                        '--objective=binary:logistic')
                self.assertEqual(rc, 1, err)
                self.assertIn(message, err)
                self.assertFalse(os.path.exists(os.path.join(self.job_dir, 'model')))

    def test_missing_object(self):
        rc, err = self.run_main('--training_data_path=gs://b/nothing.csv')
        self.assertEqual(rc, 1)
        self.assertIn('gs://b/nothing.csv: no such object', err)

    def test_categorical_column_needs_preprocess(self):
        self.put('data.csv', good_csv())
        rc, err = self.run_main('--training_data_path=gs://b/data.csv',
                                '--objective=binary:logistic')
        self.assertEqual(rc, 1)
        self.assertIn('gs://b/data.csv line 1: column 4 "a" is not a number (--preprocess', err)

    def test_arguments_the_table_refuses(self):
        self.put('data.csv', good_csv())
        for args, message in [
                (['--eta=2'], '--eta is out of range'),
                (['--nope=1'], 'Unknown argument --nope'),
                (['--validation_split=0.3', '--test_split=0.2'],
                 'validation_split + test_split must be at most 0.40')]:
            with self.subTest(args[0]):
                rc, err = self.run_main('--training_data_path=gs://b/data.csv', *args)
                self.assertEqual(rc, 1)
                self.assertIn(message, err)


class Preprocessing(AlgorithmTestCase):

    def test_drops_incomplete_rows_fills_means_and_encodes_categories(self):
        # 11 values a row: one missing (9 %) is kept, two (18 %) are dropped.
        row = ['1'] + ['1.0'] * 9 + ['red']
        one_missing = list(row)
        one_missing[3] = ''
        two_missing = list(row)
        two_missing[3] = two_missing[4] = ''
        rows = [(1, row), (2, one_missing), (3, two_missing), (4, ['0'] + ['3.0'] * 9 + ['blue'])]
        kept = tabular.drop_incomplete(rows)
        self.assertEqual([n for n, _ in kept], [1, 2, 4])
        pre = tabular.Preprocessor(kept, 'gs://b/d.csv', preprocess=True)
        self.assertEqual(pre.types, ['numerical'] * 9 + ['categorical'])
        self.assertEqual(pre.columns[2]['mean'], 2.0)  # of the two present values, 1 and 3
        self.assertEqual(pre.columns[9]['vocabulary'], ['blue', 'red'])
        features, targets = pre.transform(kept)
        self.assertEqual(features[1][2], 2.0)  # the missing value, filled with the mean
        self.assertEqual(list(features[0][-2:]), [0.0, 1.0])  # red, one-hot
        self.assertEqual(targets, [1.0, 1.0, 0.0])

    def test_numeric_files_take_the_fast_path_with_the_same_results(self):
        # All numbers: one numpy parse; "inf" or a blank is not, and takes the value-by-value path.
        rows = [(1, ['1', '2.5', ' 3']), (2, ['0', '-1e2', '4'])]
        pre = tabular.Preprocessor(rows, 'gs://b/d.csv', preprocess=False)
        self.assertEqual(pre.types, ['numerical', 'numerical'])
        self.assertEqual(pre.columns[0]['mean'], -48.75)
        features, targets = pre.transform(rows)
        self.assertEqual(features.tolist(), [[2.5, 3.0], [-100.0, 4.0]])
        self.assertEqual(targets, [1.0, 0.0])
        odd = [(1, ['1', 'inf', '']), (2, ['0', '2', '4'])]
        pre = tabular.Preprocessor(odd, 'gs://b/d.csv', preprocess=True)
        self.assertEqual(pre.types, ['categorical', 'numerical'])
        self.assertEqual(pre.columns[1]['missing'], 1)
        features, _ = pre.transform(odd)
        self.assertEqual(features.tolist(), [[0.0, 1.0, 4.0], [1.0, 0.0, 4.0]])

    def test_documented_splits(self):
        rows = [(n, ['0', '1']) for n in range(1, 101)]
        for validation, test, sizes in [(0.2, 0.0, (80, 20, 0)), (0.2, 0.2, (60, 20, 20)),
                                        (0.0, 0.1, (90, 0, 10))]:
            with self.subTest(validation=validation, test=test):
                parts = tabular.split(rows, validation, test, seed=0)
                self.assertEqual(tuple(len(p) for p in parts), sizes)
                self.assertEqual(sorted(n for p in parts for n, _ in p), list(range(1, 101)))


class CsvFastPath(AlgorithmTestCase):
    """tabular.read_csv parses a file of finite numbers only with numpy at once (NumericRows) and
    gives exactly what the careful line-by-line path gives; any other file takes the careful path,
    whose checks and messages are DataErrors' above."""

    NUMERIC = '1,2.50,-1e-3\n0,+4,1E5\n1,7 ,0.1\n0,-0,3\n1,2,2\n'
    # (case, file, the fast path?)
    CASES = [
        ('numbers', NUMERIC, True),
        ('no_final_newline', '1,2\n0,3', True),
        ('crlf', '1,2\r\n0,3\r\n', False),
        ('quoted', '1,"2"\n0,3\n', False),
        ('blank_line', '1,2\n\n0,3\n', False),
        ('blank_first_line', '\n1,2\n0,3\n', False),
        ('line_starting_blank', '1,2\n 0,3\n', False),
        ('nan', '1,nan\n0,3\n', False),
        ('inf', '1,inf\n0,3\n', False),
        ('missing_value', '1,,4\n0,3,5\n', False),
        ('missing_target', '1,2\n,3\n', False),
        ('categorical', '1,a\n0,b\n', False),
        ('comment_mark', '1,2\n0,#3\n', False),
        ('one_column', '1\n0\n', False),
        ('header', 'y,x\n1,2\n', False),
        ('ragged', '1,2,3\n0,4\n', False),
    ]

    def test_which_files_take_the_fast_path(self):
        for case, text, fast in self.CASES:
            with self.subTest(case):
                self.put('d.csv', text)
                try:
                    rows = tabular.read_csv('gs://b/d.csv')
                except tabular.DataError:
                    rows = None
                self.assertEqual(isinstance(rows, tabular.NumericRows), fast)
                if rows is None:  # the careful path's refusal, whichever way the file came
                    with self.assertRaises(tabular.DataError):
                        tabular._checked_rows(text, 'gs://b/d.csv')  # pylint: disable=W0212

    def test_the_fast_path_gives_the_careful_paths_results(self):
        self.put('d.csv', self.NUMERIC)
        fast = tabular.read_csv('gs://b/d.csv')
        careful = tabular._checked_rows(self.NUMERIC, 'gs://b/d.csv')  # pylint: disable=W0212
        self.assertIsInstance(fast, tabular.NumericRows)
        self.assertEqual(len(fast), len(careful))
        self.assertEqual(tabular.line_numbers(fast), tabular.line_numbers(careful))
        self.assertEqual([n for n, _ in fast], [n for n, _ in careful])
        self.assertEqual(len(fast[0][1]), len(careful[0][1]))
        for preprocess in (False, True):
            with self.subTest(preprocess=preprocess):
                pre_fast = tabular.Preprocessor(tabular.drop_incomplete(fast), 'u', preprocess)
                pre_careful = tabular.Preprocessor(tabular.drop_incomplete(careful), 'u',
                                                   preprocess)
                self.assertEqual(pre_fast.metadata(), pre_careful.metadata())
                for a, b in zip(pre_fast.transform(fast), pre_careful.transform(careful)):
                    self.assertEqual(list(map(list, a)) if hasattr(a, 'ndim') else a,
                                     list(map(list, b)) if hasattr(b, 'ndim') else b)
        for a, b in zip(tabular.split(fast, 0.2, 0.2, seed=3),
                        tabular.split(careful, 0.2, 0.2, seed=3)):
            self.assertEqual(tabular.line_numbers(a), tabular.line_numbers(b))
            self.assertEqual(pre_fast.transform(a)[1], pre_careful.transform(b)[1])
        both = tabular.concat([fast, fast[1:3]])
        self.assertIsInstance(both, tabular.NumericRows)
        self.assertEqual(tabular.line_numbers(both), [1, 2, 3, 4, 5, 2, 3])
        self.assertEqual(tabular.line_numbers(tabular.concat([fast[:1], careful[:1]])), [1, 1])


class Training(AlgorithmTestCase):

    def test_writes_model_artifacts_and_metrics(self):
        import xgboost
        self.put('data.csv', good_csv())
        rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                '--objective=binary:logistic', '--test_split=0.2')
        self.assertEqual(rc, 0, err)
        booster = xgboost.Booster(model_file=os.path.join(self.job_dir, 'model', 'model.bst'))
        self.assertEqual(booster.num_features(), 2 + 3)  # two numbers, three categories
        with open(os.path.join(self.job_dir, 'artifacts', 'metadata.json')) as f:
            metadata = json.load(f)
        self.assertEqual((len(metadata['rows']['training']), len(metadata['rows']['validation']),
                          len(metadata['rows']['test'])), (30, 10, 10))
        with open(os.path.join(self.job_dir, 'artifacts', 'metrics.json')) as f:
            metrics = json.load(f)
        self.assertEqual(metrics['eval_metric'], 'logloss')
        self.assertIn('auc', metrics['validation'])
        self.assertIn('accuracy', metrics['test'])
        self.assertEqual(sorted(os.listdir(self.job_dir)), ['artifacts', 'model'])

    def test_logs_the_evaluation_about_twenty_times_and_after_the_last_round(self):
        self.put('data.csv', good_csv())
        for rounds, logged in [(5, [0, 1, 2, 3, 4]), (45, list(range(0, 45, 3)) + [44]),
                               (100, list(range(0, 100, 5)) + [99])]:
            with self.subTest(rounds=rounds):
                out = io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                    rc = self.program.main(['--preprocess', '--training_data_path=gs://b/data.csv',
                                            '--objective=binary:logistic',
                                            '--num_round={}'.format(rounds),
                                            '--job-dir', self.job_dir])
                self.assertEqual(rc, 0)
                lines = [line for line in out.getvalue().splitlines()
                         if '\tvalidation-logloss:' in line]
                self.assertEqual([int(line[1:line.index(']')]) for line in lines], logged)

    def test_tuning_trial_writes_under_its_trial_and_reports_the_metric(self):
        self.put('data.csv', good_csv())
        metric_file = os.path.join(self.tmp, 'hypertune', 'master-replica-0.metrics')
        os.environ.update(CLOUD_ML_TRIAL_ID='3', CLOUD_ML_HP_METRIC_FILE=metric_file,
                          CLOUD_ML_HP_METRIC_TAG='auc')
        rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                '--objective=binary:logistic', '--max_depth=2', '--num_round=5')
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.exists(os.path.join(self.job_dir, '3', 'model', 'model.bst')))
        with open(metric_file) as f:
            report = json.loads(f.read().splitlines()[-1])
        self.assertEqual(report['trial'], '3')
        self.assertEqual(report['global_step'], '5')
        with open(os.path.join(self.job_dir, '3', 'artifacts', 'metrics.json')) as f:
            self.assertEqual(float(report['auc']), json.load(f)['validation']['auc'])


if __name__ == '__main__':
    unittest.main()
