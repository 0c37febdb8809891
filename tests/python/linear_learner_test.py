#!/usr/bin/python3
"""python/trainyard_algorithms/linear_learner.py: the built-in linear learner on Debian's
python3-torch, as replicas run it (the copy beside the built trainyard, $TY_PYTHON_DIR, else
python/ in the source tree), in-process with a temporary bucket store (xgboost_algorithm_test's
fixture: the data rules and --preprocess are tested there, on the code both programs share).

One case per rule of its own: the TorchScript model in model/ loads with torch and predicts the
held-out rows with the reported metric (binary classification, more classes, regression); a
classification target that is not a class number fails naming the file; its documented arguments
are checked; FTRL's L1 strength zeroes weights; a class seen only in the validation file is one of
the model's; a value missing without --preprocess is the column's training mean; a tuning trial
reports its metric.
"""

import json
import os
import unittest

from xgboost_algorithm_test import AlgorithmTestCase, good_csv

from trainyard_algorithms import linear_learner, runner  # noqa: E402 (path set by the import above)

ROWS = 60


def three_classes_csv():
    """The class is which third of [0, 1) x1 falls in."""
    lines = []
    for i in range(ROWS):
        x1 = (i * 37 % ROWS) / ROWS
        lines.append('{},{:.3f},{:.3f}'.format(int(x1 * 3), x1, (i % 5) / 5.0))
    return '\n'.join(lines) + '\n'


def regression_csv():
    """y = 3 x1 - 2 x2 + 1."""
    lines = []
    for i in range(ROWS):
        x1, x2 = (i * 37 % ROWS) / ROWS, (i % 7) / 7.0
        lines.append('{:.4f},{:.4f},{:.4f}'.format(3 * x1 - 2 * x2 + 1, x1, x2))
    return '\n'.join(lines) + '\n'


class LinearLearnerTestCase(AlgorithmTestCase):
    program = linear_learner

    def outputs(self, job_dir=None):
        """(the loaded model, metadata, metrics) the run wrote."""
        import torch
        job_dir = job_dir or self.job_dir
        model = torch.jit.load(os.path.join(job_dir, 'model', 'model.pt'))
        with open(os.path.join(job_dir, 'artifacts', 'metadata.json')) as f:
            metadata = json.load(f)
        with open(os.path.join(job_dir, 'artifacts', 'metrics.json')) as f:
            metrics = json.load(f)
        return model, metadata, metrics

    def validation_features(self, metadata, data):
        """The validation rows' (features, targets), transformed as metadata says."""
        import torch
        lines = data.splitlines()
        chosen = [(n, lines[n - 1].split(',')) for n in metadata['rows']['validation']]
        features = []
        for _, row in chosen:
            out = []
            for column in metadata['columns']:
                text = row[column['index']]
                if column['type'] == 'numerical':
                    out.append(float(text) if text.strip() else column['mean'])
                else:
                    out.extend(1.0 if text == v else 0.0 for v in column['vocabulary'])
            features.append(out)
        return (torch.tensor(features, dtype=torch.float32),
                [float(row[0]) for _, row in chosen])


class Models(LinearLearnerTestCase):

    def test_binary_classification_model_predicts_the_reported_auc(self):
        self.put('data.csv', good_csv(ROWS))
        rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                '--model_type=classification', '--optimizer_type=adam',
                                '--learning_rate=0.05', '--max_steps=60', '--batch_size=16')
        self.assertEqual(rc, 0, err)
        model, metadata, metrics = self.outputs()
        self.assertEqual(metadata['classes'], 2)
        features, targets = self.validation_features(metadata, good_csv(ROWS))
        scores = model(features).detach().numpy()
        self.assertEqual(scores.shape, (len(targets),))
        self.assertAlmostEqual(runner.auc(targets, scores), metrics['validation']['auc'],
                               places=6)
        self.assertGreater(metrics['validation']['accuracy'], 0.8, metrics)
        self.assertEqual(sorted(os.listdir(self.job_dir)), ['artifacts', 'model'])

    def test_more_classes_give_each_class_probability(self):
        self.put('data.csv', three_classes_csv())
        rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                '--model_type=classification', '--optimizer_type=adam',
                                '--learning_rate=0.1', '--max_steps=80', '--batch_size=20')
        self.assertEqual(rc, 0, err)
        model, metadata, metrics = self.outputs()
        self.assertEqual(metadata['classes'], 3)
        features, targets = self.validation_features(metadata, three_classes_csv())
        probabilities = model(features).detach().numpy()
        self.assertEqual(probabilities.shape, (len(targets), 3))
        accuracy = float((probabilities.argmax(axis=1) == targets).mean())
        self.assertAlmostEqual(accuracy, metrics['validation']['accuracy'])
        self.assertNotIn('auc', metrics['validation'])

    def test_regression_predicts_the_reported_rmse(self):
        self.put('data.csv', regression_csv())
        rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                '--model_type=regression', '--optimizer_type=sgd',
                                '--learning_rate=0.1', '--max_steps=200', '--batch_size=16')
        self.assertEqual(rc, 0, err)
        model, metadata, metrics = self.outputs()
        features, targets = self.validation_features(metadata, regression_csv())
        predictions = model(features).detach().numpy()
        rmse = runner.regression_metrics(targets, predictions)['rmse']
        self.assertAlmostEqual(rmse, metrics['validation']['rmse'], places=5)
        self.assertLess(rmse, 0.1, metrics)  # a linear target is learnt

    def test_ftrl_l1_strength_zeroes_the_weights(self):
        self.put('data.csv', good_csv(ROWS))
        rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                '--model_type=classification', '--learning_rate=0.5',
                                '--max_steps=20', '--l1_regularization_strength=1000')
        self.assertEqual(rc, 0, err)
        model, _, _ = self.outputs()
        self.assertEqual(float(model.core.weight.abs().sum()), 0.0)
        self.put('data.csv', good_csv(ROWS))
        rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                '--model_type=classification', '--learning_rate=0.5',
                                '--max_steps=20')
        self.assertEqual(rc, 0, err)
        model, _, _ = self.outputs()
        self.assertGreater(float(model.core.weight.abs().sum()), 0.0)

    def test_a_class_seen_only_in_the_validation_file_is_a_class_of_the_model(self):
        self.put('train.csv', '0,1\n1,2\n0,1\n1,2\n')
        self.put('valid.csv', '2,3\n0,1\n')
        rc, err = self.run_main('--training_data_path=gs://b/train.csv',
                                '--validation_data_path=gs://b/valid.csv',
                                '--model_type=classification', '--max_steps=5')
        self.assertEqual(rc, 0, err)
        _, metadata, metrics = self.outputs()
        self.assertEqual(metadata['classes'], 3)
        self.assertIn('accuracy', metrics['validation'])

    def test_a_missing_value_without_preprocess_is_the_training_mean(self):
        self.put('data.csv', '0,1\n1,3\n0,\n1,2\n')
        sets, _, _, _, _, _ = linear_learner.prepare(
            {'preprocess': False, 'training_data_path': 'gs://b/data.csv',
             'validation_split': 0.2, 'test_split': 0.0, 'model_type': 'regression'})
        self.assertEqual(sets['training'][0][:, 0].tolist(), [1.0, 3.0, 2.0, 2.0])


class Refusals(LinearLearnerTestCase):

    def test_a_target_that_is_not_a_class_fails_naming_the_file(self):
        self.put('data.csv', '0.5,1,2\n1,2,3\n0,3,4\n1,4,5\n0,5,6\n')
        rc, err = self.run_main('--training_data_path=gs://b/data.csv',
                                '--model_type=classification')
        self.assertEqual(rc, 1)
        self.assertIn('gs://b/data.csv: --model_type=classification needs the target to be a '
                      'class number', err)
        self.assertFalse(os.path.exists(os.path.join(self.job_dir, 'model')))

    def test_arguments_the_table_refuses(self):
        self.put('data.csv', good_csv(ROWS))
        for args, message in [
                ([], '--model_type is required'),
                (['--model_type=ranking'], '--model_type must be one of classification, '
                                           'regression'),
                (['--model_type=regression', '--optimizer_type=lbfgs'],
                 '--optimizer_type must be one of ftrl, adam, sgd'),
                (['--model_type=regression', '--learning_rate=0'],
                 '--learning_rate is out of range'),
                (['--model_type=regression', '--max_depth=3'],
                 'Unknown argument --max_depth for the built-in linear learner algorithm')]:
            with self.subTest(' '.join(args)):
                rc, err = self.run_main('--training_data_path=gs://b/data.csv', *args)
                self.assertEqual(rc, 1)
                self.assertIn(message, err)


class Tuning(LinearLearnerTestCase):

    def test_trial_reports_the_tag_or_accuracy(self):
        self.put('data.csv', good_csv(ROWS))
        metric_file = os.path.join(self.tmp, 'hypertune', 'master-replica-0.metrics')
        os.environ.update(CLOUD_ML_TRIAL_ID='2', CLOUD_ML_HP_METRIC_FILE=metric_file,
                          CLOUD_ML_HP_METRIC_TAG='auc')
        rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                '--model_type=classification', '--max_steps=10')
        self.assertEqual(rc, 0, err)
        _, _, metrics = self.outputs(os.path.join(self.job_dir, '2'))
        with open(metric_file) as f:
            report = json.loads(f.read().splitlines()[-1])
        self.assertEqual(report['global_step'], '10')
        self.assertEqual(float(report['auc']), metrics['validation']['auc'])


if __name__ == '__main__':
    unittest.main()
