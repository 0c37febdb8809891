"""Unit tests of python/hypertune, trainyard's cloudml-hypertune.

The file protocol it implements: docs/reference/ai-platform-training.md §9.2.

The module under test is imported from $TY_PYTHON_DIR (CTest points it at the copy next to the
built trainyard, which is what replicas import) or else from the source tree's python/ folder.
Every test works in its own temporary directory and environment; nothing touches /tmp/hypertune.

    /usr/bin/python3 -m unittest tests/python/hypertune_test.py
"""

import json
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

PYTHON_DIR = os.environ.get('TY_PYTHON_DIR') or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', 'python')
sys.path.insert(0, PYTHON_DIR)

import hypertune  # noqa: E402  pylint: disable=wrong-import-position

DEFAULT_TAG = 'training/hptuning/metric'


class HyperTuneTest(unittest.TestCase):
    """The file `report_hyperparameter_tuning_metric` writes, line by line."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='hypertune_test.')
        self.addCleanup(shutil.rmtree, self.tmp)
        self.metric_file = os.path.join(self.tmp, 'trial', 'output.metrics')
        os.makedirs(os.path.dirname(self.metric_file))
        env = {'CLOUD_ML_HP_METRIC_FILE': self.metric_file, 'CLOUD_ML_TRIAL_ID': '7'}
        patcher = mock.patch.dict(os.environ, env)
        patcher.start()
        self.addCleanup(patcher.stop)

    def read_lines(self, path=None):
        with open(path or self.metric_file, encoding='utf-8') as f:
            return f.read().splitlines()

    def test_imports_the_module_under_test(self):
        self.assertEqual(os.path.realpath(os.path.dirname(hypertune.__file__)),
                         os.path.realpath(os.path.join(PYTHON_DIR, 'hypertune')))

    def test_exposes_the_library_names(self):
        self.assertEqual(hypertune.__all__, ['HyperTune'])
        self.assertEqual(hypertune._DEFAULT_HYPERPARAMETER_METRIC_TAG, DEFAULT_TAG)
        self.assertEqual(hypertune._DEFAULT_METRIC_PATH, '/tmp/hypertune/output.metrics')
        self.assertEqual(hypertune._MAX_NUM_METRIC_ENTRIES_TO_PRESERVE, 100)

    def test_line_is_sorted_json_with_string_values_and_a_float_timestamp(self):
        with mock.patch('time.time', return_value=1700000000.25):
            hypertune.HyperTune().report_hyperparameter_tuning_metric(
                hyperparameter_metric_tag='val_accuracy', metric_value=0.912, global_step=500)
        self.assertEqual(self.read_lines(), [
            '{"checkpoint_path": "", "global_step": "500", "timestamp": 1700000000.25, '
            '"trial": "7", "val_accuracy": "0.912"}'
        ])

    def test_values_are_converted_as_the_library_converts_them(self):
        cases = [
            # (name, metric_value, global_step, checkpoint_path, want value, want step)
            ('int value becomes a float string', 3, 10, '', '3.0', '10'),
            ('string value parsed as float', '0.5', 10, '', '0.5', '10'),
            ('float step truncated', 1.0, 12.9, '', '1.0', '12'),
            ('string step', 1.0, '42', '', '1.0', '42'),
            ('no step', 1.0, None, '', '1.0', '0'),
            ('step zero', 1.0, 0, '', '1.0', '0'),
            ('checkpoint path kept', 1.0, 5, 'gs://b/ckpt/', '1.0', '5'),
        ]
        for name, value, step, checkpoint, want_value, want_step in cases:
            with self.subTest(name):
                hpt = hypertune.HyperTune()
                hpt.report_hyperparameter_tuning_metric('loss', value, step, checkpoint)
                entry = json.loads(self.read_lines()[-1])
                self.assertEqual(entry['loss'], want_value)
                self.assertEqual(entry['global_step'], want_step)
                self.assertEqual(entry['checkpoint_path'], checkpoint)
                self.assertEqual(entry['trial'], '7')
                self.assertIsInstance(entry['timestamp'], float)

    def test_keyword_arguments_have_the_library_names(self):
        hypertune.HyperTune().report_hyperparameter_tuning_metric(
            hyperparameter_metric_tag='acc', metric_value=0.75, global_step=3,
            checkpoint_path='/ckpt')
        entry = json.loads(self.read_lines()[0])
        self.assertEqual(sorted(entry), ['acc', 'checkpoint_path', 'global_step', 'timestamp',
                                         'trial'])

    def test_empty_or_none_tag_reports_the_default_tag(self):
        for tag in ('', None):
            with self.subTest(repr(tag)):
                hypertune.HyperTune().report_hyperparameter_tuning_metric(tag, 2.5)
                entry = json.loads(self.read_lines()[-1])
                self.assertEqual(entry[DEFAULT_TAG], '2.5')
                self.assertEqual(len(entry), 5)

    def test_every_report_rewrites_the_whole_file_in_order(self):
        hpt = hypertune.HyperTune()
        for step in range(1, 4):
            hpt.report_hyperparameter_tuning_metric('acc', step / 10.0, step)
        steps = [json.loads(line)['global_step'] for line in self.read_lines()]
        self.assertEqual(steps, ['1', '2', '3'])

    def test_a_new_instance_starts_a_new_file(self):
        hypertune.HyperTune().report_hyperparameter_tuning_metric('acc', 0.1, 1)
        hypertune.HyperTune().report_hyperparameter_tuning_metric('acc', 0.2, 2)
        self.assertEqual([json.loads(line)['acc'] for line in self.read_lines()], ['0.2'])

    def test_keeps_only_the_last_100_entries(self):
        hpt = hypertune.HyperTune()
        for step in range(101):
            hpt.report_hyperparameter_tuning_metric('acc', step, step)
        lines = self.read_lines()
        self.assertEqual(len(lines), 100)
        self.assertEqual(json.loads(lines[0])['global_step'], '1')
        self.assertEqual(json.loads(lines[-1])['global_step'], '100')

    def test_leaves_no_temporary_file_behind(self):
        hpt = hypertune.HyperTune()
        for step in range(3):
            hpt.report_hyperparameter_tuning_metric('acc', 0.5, step)
        self.assertEqual(os.listdir(os.path.dirname(self.metric_file)), ['output.metrics'])

    def test_a_failed_write_keeps_the_previous_file_and_no_temporary(self):
        hpt = hypertune.HyperTune()
        hpt.report_hyperparameter_tuning_metric('acc', 0.5, 1)
        with mock.patch.object(hypertune.json, 'dumps', side_effect=ValueError('boom')):
            with self.assertRaises(ValueError):
                hpt.report_hyperparameter_tuning_metric('acc', 0.6, 2)
        self.assertEqual([json.loads(line)['acc'] for line in self.read_lines()], ['0.5'])
        self.assertEqual(os.listdir(os.path.dirname(self.metric_file)), ['output.metrics'])

    def test_creates_the_metric_file_directory(self):
        path = os.path.join(self.tmp, 'a', 'b', 'm.metrics')
        with mock.patch.dict(os.environ, {'CLOUD_ML_HP_METRIC_FILE': path}):
            hypertune.HyperTune().report_hyperparameter_tuning_metric('acc', 1, 1)
        self.assertEqual(len(self.read_lines(path)), 1)

    def test_falls_back_to_the_default_path_without_the_variable(self):
        default = os.path.join(self.tmp, 'hypertune', 'output.metrics')
        del os.environ['CLOUD_ML_HP_METRIC_FILE']
        with mock.patch.object(hypertune, '_DEFAULT_METRIC_PATH', default):
            hpt = hypertune.HyperTune()
            hpt.report_hyperparameter_tuning_metric('acc', 1, 1)
        self.assertEqual(hpt.metric_path, default)
        self.assertEqual(len(self.read_lines(default)), 1)

    def test_trial_id_defaults_to_zero(self):
        del os.environ['CLOUD_ML_TRIAL_ID']
        hpt = hypertune.HyperTune()
        hpt.report_hyperparameter_tuning_metric('acc', 1, 1)
        self.assertEqual(hpt.trial_id, 0)
        self.assertEqual(json.loads(self.read_lines()[0])['trial'], '0')


if __name__ == '__main__':
    unittest.main()
