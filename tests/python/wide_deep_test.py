#!/usr/bin/python3
"""python/trainyard_algorithms/wide_deep.py: the built-in wide and deep algorithm on Debian's
python3-torch, as replicas run it, with linear_learner_test's fixture (its data, training loop,
outputs and tuning report are the linear learner's, tested there).

One case per rule of its own: the wide part takes the numeric columns, and the categorical ones
with --use_wide; the deep part is --hidden_units of ReLU layers over the numeric columns and the
categorical ones, one-hot or through one embedding each (--embed_categories, about
6 x vocabulary^(1/4) wide); the saved model predicts the held-out rows with the reported metric;
--hidden_units must be positive integers.
"""

import os
import unittest

from linear_learner_test import LinearLearnerTestCase, ROWS
from xgboost_algorithm_test import good_csv

from trainyard_algorithms import runner, wide_deep  # noqa: E402 (path set by the imports above)


class WideDeepTestCase(LinearLearnerTestCase):
    program = wide_deep

    def train(self, *args):
        """The model trained on good_csv (two numeric columns, one of three categories)."""
        self.put('data.csv', good_csv(ROWS))
        rc, err = self.run_main('--preprocess', '--training_data_path=gs://b/data.csv',
                                '--model_type=classification', '--max_steps=60',
                                '--batch_size=16', '--dnn_optimizer_type=adam',
                                '--dnn_learning_rate=0.02', *args)
        self.assertEqual(rc, 0, err)
        return self.outputs()


class Model(WideDeepTestCase):

    def test_deep_layers_over_one_hot_categories_and_a_numeric_wide_part(self):
        model, metadata, metrics = self.train('--hidden_units=8,4')
        core = model.core
        self.assertEqual(core.wide.weight.shape[1], 2)  # the two numeric columns only
        widths = [tuple(p.shape) for name, p in core.deep.named_parameters()
                  if name.endswith('weight')]
        self.assertEqual(widths, [(8, 2 + 3), (4, 8), (1, 4)])
        features, targets = self.validation_features(metadata, good_csv(ROWS))
        scores = model(features).detach().numpy()
        self.assertAlmostEqual(runner.auc(targets, scores), metrics['validation']['auc'],
                               places=6)
        self.assertEqual(sorted(os.listdir(self.job_dir)), ['artifacts', 'model'])

    def test_use_wide_and_embed_categories(self):
        model, _, _ = self.train('--hidden_units=6', '--use_wide', '--embed_categories')
        core = model.core
        self.assertEqual(core.wide.weight.shape[1], 2 + 3)  # numbers and the one-hot categories
        size = wide_deep.embedding_size(3)
        self.assertEqual(tuple(core.embedding.shape), (size, 3))
        first = [tuple(p.shape) for name, p in core.deep.named_parameters()
                 if name.endswith('weight')][0]
        self.assertEqual(first, (6, 2 + size))  # numbers and the column's embedding

    def test_each_embedding_sees_its_own_column_only(self):
        import torch
        from trainyard_algorithms import tabular
        rows = [(n, ['1', str(n), 'abc'[n % 3], 'xy'[n % 2]]) for n in range(1, 13)]
        pre = tabular.Preprocessor(rows, 'gs://b/d.csv', preprocess=True)
        values = {'use_wide': False, 'embed_categories': True, 'hidden_units': [4],
                  'dnn_dropout': 0.0}
        core = wide_deep.make_core(pre, 1, values)
        a, b = wide_deep.embedding_size(3), wide_deep.embedding_size(2)
        expected = torch.zeros(a + b, 5)
        expected[:a, :3] = 1
        expected[a:, 3:] = 1
        self.assertTrue(torch.equal(core.embedding_mask, expected))


class Refusals(WideDeepTestCase):

    def test_hidden_units_are_positive_integers(self):
        self.put('data.csv', good_csv(ROWS))
        for units in ('8,0', '8,x', ''):
            with self.subTest(units):
                rc, err = self.run_main('--training_data_path=gs://b/data.csv',
                                        '--model_type=regression', '--hidden_units=' + units)
                self.assertEqual(rc, 1)
                self.assertIn('--hidden_units must be comma-separated integers', err)


if __name__ == '__main__':
    unittest.main()
