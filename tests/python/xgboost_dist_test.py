#!/usr/bin/python3
"""python/trainyard_algorithms: the built-in distributed XGBoost algorithm's program, as replicas
run it (xgboost_dist.py).

One row per rule: the replica's rank and the tracker's address from CLUSTER_SPEC/TF_CONFIG; the
rows each replica keeps; data patterns; the arguments it refuses (its own table entry, the
single-replica algorithm's XGBoost parameters without --preprocess). Then whole jobs: one replica
alone in-process, and a master with two workers as three processes on loopback that meet over
XGBoost's collective, where the model's root covers every training row (the gradient statistics
were summed across the replicas, not one shard's) and the master's metrics are the model's on the
held-out rows. Needs Debian's python3-xgboost and python3-numpy.
"""

import json
import os
import socket
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from xgboost_algorithm_test import PYTHON_DIR, AlgorithmTestCase  # noqa: E402

from trainyard_algorithms import liveness, runner, tabular, xgboost_dist  # noqa: E402

ARGS = ['--training_data_path=gs://b/train-*.csv', '--validation_data_path=gs://b/valid.csv',
        '--objective=binary:logistic', '--eval_metric=auc', '--num_round=8']


def rows_csv(first, count):
    """Numeric rows: the target is whether x1 + noise > 0.5."""
    lines = []
    for i in range(first, first + count):
        x1 = (i * 37 % 101) / 101.0
        x2 = (i * 13 % 17) / 17.0
        lines.append('{},{:.4f},{:.4f}'.format(int(x1 + 0.2 * x2 > 0.6), x1, x2))
    return '\n'.join(lines) + '\n'


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class DistributedTestCase(AlgorithmTestCase):
    program = xgboost_dist


class Cluster(DistributedTestCase):

    CASES = [
        ('alone', {}, (0, 1, None)),
        ('master', {'CLUSTER_SPEC': {'cluster': {'master': ['h:7'], 'worker': ['a:1', 'b:2']},
                                     'task': {'type': 'master', 'index': 0}}}, (0, 3, ('h', 7))),
        ('worker', {'CLUSTER_SPEC': {'cluster': {'master': ['h:7'], 'worker': ['a:1', 'b:2']},
                                     'task': {'type': 'worker', 'index': 1}}}, (2, 3, ('h', 7))),
        ('chief_in_tf_config', {'TF_CONFIG': {'cluster': {'chief': ['h:7'], 'worker': ['a:1']},
                                              'task': {'type': 'worker', 'index': 0}}},
         (1, 2, ('h', 7))),
        ('master_only', {'CLUSTER_SPEC': {'cluster': {'master': ['h:7']},
                                          'task': {'type': 'master', 'index': 0}}}, (0, 1, None)),
    ]

    def setUp(self):
        super().setUp()
        self.saved = {k: os.environ.pop(k, None) for k in ('CLUSTER_SPEC', 'TF_CONFIG')}

    def tearDown(self):
        for name, value in self.saved.items():
            os.environ.pop(name, None)
            if value is not None:
                os.environ[name] = value
        super().tearDown()

    def test_rank_size_and_tracker(self):
        for name, env, expected in self.CASES:
            with self.subTest(name):
                for key in ('CLUSTER_SPEC', 'TF_CONFIG'):
                    os.environ.pop(key, None)
                for key, value in env.items():
                    os.environ[key] = json.dumps(value)
                self.assertEqual(xgboost_dist.cluster(), expected)

    def test_a_parameter_server_is_refused(self):
        os.environ['CLUSTER_SPEC'] = json.dumps({'cluster': {'master': ['h:7'], 'ps': ['p:1']},
                                                 'task': {'type': 'ps', 'index': 0}})
        with self.assertRaisesRegex(runner.UsageError, 'master and workers, not on a ps'):
            xgboost_dist.cluster()


class LostReplicas(DistributedTestCase):
    """After the collective fails, a replica names those whose cluster address refuses a
    connection: each live replica answers on its own address (liveness.Responder)."""

    def test_the_replicas_whose_address_refuses_are_named(self):
        ports = [free_port() for _ in range(3)]
        spec = {'cluster': {'master': ['127.0.0.1:{}'.format(ports[0])],
                            'worker': ['127.0.0.1:{}'.format(p) for p in ports[1:]]},
                'task': {'type': 'worker', 'index': 1}}
        os.environ['CLUSTER_SPEC'] = json.dumps(spec)
        self.addCleanup(os.environ.pop, 'CLUSTER_SPEC', None)
        self.assertEqual([name for name, _ in xgboost_dist.members()],
                         ['master 0', 'worker 0', 'worker 1'])
        alive = {}
        for case, listening, lost in [
                ('all_alive', ('master 0', 'worker 0'), []),
                ('a_worker_died', ('master 0',), ['worker 0']),
                ('the_master_died', ('worker 0',), ['master 0']),
                ('both_died', (), ['master 0', 'worker 0'])]:
            with self.subTest(case):
                for name, address in xgboost_dist.members()[:2]:
                    if name in listening and name not in alive:
                        alive[name] = liveness.Responder(address, liveness.Progress())
                    elif name not in listening and name in alive:
                        alive.pop(name).close()
                self.assertEqual(xgboost_dist.lost_replicas(2), lost)
        for responder in alive.values():
            responder.close()
        error = xgboost_dist.collective_failure(2, tabular.DataError(
            'XGBoost cannot train on gs://b/t.csv: [01:02:03] utils.h:86: Allreduce failed'))
        self.assertEqual(str(error), 'replica worker 1 of the distributed XGBoost job stopped: '
                         'the collective lost master 0 and worker 0 while training, and the '
                         'algorithm cannot go on without every replica (XGBoost: Allreduce '
                         'failed)')


class Watchdog(DistributedTestCase):
    """liveness.Watchdog.look, one row per rule, on a clock the test moves: a peer that answered
    before and then refuses, a peer whose address accepts but answers nothing, and a peer that
    stands still reading are named once this replica has stood still long enough; a peer that
    answers, or refuses without ever having answered, is not."""

    def peer(self, kind, phase='training', count=0):
        """(name, address) of a peer that answers with (phase, count), refuses (nothing
        listens) or is silent (its kernel accepts, nothing answers: a stopped process)."""
        address = ('127.0.0.1', free_port())
        if kind == 'answers':
            progress = liveness.Progress()
            progress.enter(phase)
            progress.count = count
            self.addCleanup(liveness.Responder(address, progress).close)
        elif kind == 'silent':
            server = socket.create_server(address)
            self.addCleanup(server.close)
        return address

    def test_rules(self):
        stall, silent = liveness.STALL_SECONDS, liveness.SILENT_SECONDS
        read_stall = liveness.READ_STALL_SECONDS
        # (case, my phase, peer: kind or (kind, phase, count), known before, [(seconds since my
        # progress moved, expected)] looked at in turn)
        cases = [
            ('answers', 'training', 'answers', True, [(stall, []), (stall + silent, [])]),
            ('refuses_while_i_move', 'training', 'refuses', True, [(0, [])]),
            ('refuses', 'training', 'refuses', True, [(stall, ['the collective lost w'])]),
            ('never_answered', 'training', 'refuses', False, [(stall + 60, [])]),
            ('silent_never_answered', 'training', 'silent', False,
             [(stall, []), (stall + silent, ['w stopped answering'])]),
            ('silent', 'training', 'silent', True,
             [(stall, []), (stall + silent - 1, []),
              (stall + silent, ['w stopped answering (no answer for 10 s)'])]),
            ('silent_before_training', 'joining', 'silent', True,
             [(stall, []), (stall + silent, []),
              (stall + liveness.SILENT_BEFORE_SECONDS, ['w stopped answering'])]),
            ('stuck_reading', 'joining', ('answers', 'reading', 7), True,
             [(stall, []), (stall + read_stall - 1, []),
              (stall + read_stall, ['w is stuck reading its data (7 bytes read, none for 60 s)'])]),
            ('reading_while_i_read', 'reading', ('answers', 'reading', 7), True,
             [(stall, []), (stall + read_stall, [])]),
        ]
        for case, mine, peer, known, looks in cases:
            with self.subTest(case):
                kind, phase, count = peer if isinstance(peer, tuple) else (peer, 'training', 0)
                progress = liveness.Progress()
                progress.enter(mine)
                watchdog = liveness.Watchdog(progress, [('w', self.peer(kind, phase, count))],
                                             None)
                if known:
                    watchdog.known.add('w')
                for seconds, expected in looks:
                    found = watchdog.look(progress.moved + seconds)
                    self.assertEqual(len(found), len(expected), found)
                    for text, prefix in zip(found, expected):
                        self.assertTrue(text.startswith(prefix), (text, prefix))

    def test_a_peer_that_answers_becomes_known_while_this_replica_moves(self):
        progress = liveness.Progress()
        watchdog = liveness.Watchdog(progress, [('w', self.peer('answers'))], None)
        self.assertEqual(watchdog.look(progress.moved), [])
        self.assertEqual(watchdog.known, {'w'})

    def test_the_message_names_the_replica_the_phase_and_the_bound(self):
        os.environ['CLUSTER_SPEC'] = json.dumps(
            {'cluster': {'master': ['h:7'], 'worker': ['a:1']},
             'task': {'type': 'master', 'index': 0}})
        self.addCleanup(os.environ.pop, 'CLUSTER_SPEC', None)
        progress = liveness.Progress()
        progress.enter('training')
        self.assertEqual(
            xgboost_dist.stopped_message(0, progress, 'worker 0 stopped answering (no answer '
                                                      'for 10 s)'),
            'replica master 0 of the distributed XGBoost job stopped: worker 0 stopped answering '
            '(no answer for 10 s) while training, and the algorithm cannot go on without every '
            'replica (a replica that stops answering while training fails the job within 40 s; '
            'one whose data read stops, within 75 s)')


class Data(DistributedTestCase):

    def test_each_replica_keeps_every_nth_row_from_its_rank(self):
        rows = list(range(10))
        shards = [xgboost_dist.shard(rows, rank, 3) for rank in range(3)]
        self.assertEqual(shards, [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]])

    def test_a_pattern_names_its_files_in_name_order(self):
        self.put('train-2.csv', rows_csv(10, 3))
        self.put('train-1.csv', rows_csv(0, 2))
        self.put('valid.csv', rows_csv(20, 2))
        self.assertEqual(xgboost_dist.matching_uris('gs://b/train-*.csv'),
                         ['gs://b/train-1.csv', 'gs://b/train-2.csv'])
        self.assertEqual(xgboost_dist.matching_uris('gs://b/valid.csv'), ['gs://b/valid.csv'])
        self.assertEqual([n for n, _ in xgboost_dist.read_rows('gs://b/train-*.csv')],
                         [1, 2, 1, 2, 3])
        with self.assertRaisesRegex(tabular.DataError, 'gs://b/none-\\*.csv: no object matches'):
            xgboost_dist.matching_uris('gs://b/none-*.csv')

    def test_a_bad_file_of_a_pattern_is_named_with_its_line(self):
        self.put('train-1.csv', rows_csv(0, 3))
        self.put('train-2.csv', '1,2,3\nx,4,5\n')
        rc, err = self.run_main(*ARGS)
        self.assertEqual(rc, 1)
        self.assertIn('gs://b/train-2.csv line 2: the target (first column) "x" is not a number',
                      err)
        self.assertFalse(os.path.exists(os.path.join(self.job_dir, 'model')))

    def test_files_of_different_widths(self):
        self.put('train-1.csv', rows_csv(0, 3))
        self.put('train-2.csv', '1,2,3,4\n')
        rc, err = self.run_main(*ARGS)
        self.assertEqual(rc, 1)
        self.assertIn('gs://b/train-2.csv: 4 columns, but gs://b/train-*.csv has 3', err)

    def test_arguments_the_table_refuses(self):
        self.put('train-1.csv', rows_csv(0, 20))
        for extra, message in [
                ('--preprocess', 'Unknown argument --preprocess for the built-in distributed '
                                 'XGBoost algorithm'),
                ('--test_split=0.1', 'Unknown argument --test_split'),
                ('--silent=2', '--silent is out of range'),
                ('--model_saving_period=1.5', '--model_saving_period must be an integer'),
                ('--eval_log_period=x', '--eval_log_period must be an integer'),
                ('--eta=2', '--eta is out of range')]:
            with self.subTest(extra):
                rc, err = self.run_main('--training_data_path=gs://b/train-*.csv', extra)
                self.assertEqual(rc, 1)
                self.assertIn(message, err)


class Training(DistributedTestCase):

    def put_data(self):
        self.put('train-1.csv', rows_csv(0, 150))
        self.put('train-2.csv', rows_csv(150, 150))
        self.put('valid.csv', rows_csv(300, 100))

    def check_outputs(self):
        """The model's AUC on the validation rows is the one metrics.json reports."""
        import numpy as np
        import xgboost
        from trainyard_algorithms import runner as shared
        booster = xgboost.Booster(model_file=os.path.join(self.job_dir, 'model', 'model.bst'))
        with open(os.path.join(self.job_dir, 'artifacts', 'metrics.json')) as f:
            metrics = json.load(f)
        valid = np.loadtxt(os.path.join(self.mount, 'b', 'valid.csv'), delimiter=',')
        scores = booster.predict(xgboost.DMatrix(valid[:, 1:]))
        self.assertAlmostEqual(shared.auc(valid[:, 0], scores), metrics['validation']['auc'])
        self.assertEqual(metrics['eval_metric'], 'auc')
        self.assertTrue(os.path.exists(os.path.join(self.job_dir, 'checkpoints', 'model.bst')))
        with open(os.path.join(self.job_dir, 'artifacts', 'metadata.json')) as f:
            metadata = json.load(f)
        self.assertEqual(metadata['files']['training'],
                         ['gs://b/train-1.csv', 'gs://b/train-2.csv'])
        return booster

    def test_alone(self):
        self.put_data()
        rc, err = self.run_main(*ARGS)
        self.assertEqual(rc, 0, err)
        self.check_outputs()

    def test_master_and_two_workers_meet_over_the_collective(self):
        self.put_data()
        port = free_port()
        cluster = {'master': ['127.0.0.1:{}'.format(port)],
                   'worker': ['127.0.0.1:1', '127.0.0.1:2']}  # workers bind no cluster port
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR, TRAINYARD_GCS_MOUNT=self.mount)
        argv = [sys.executable, '-m', 'trainyard_algorithms.xgboost_dist',
                '--objective=reg:squarederror', '--num_round=3', '--max_depth=2',
                '--training_data_path=gs://b/train-*.csv', '--validation_data_path=gs://b/valid.csv',
                '--job-dir', self.job_dir]
        replicas = []
        for kind, index in (('worker', 1), ('worker', 0), ('master', 0)):  # workers first
            spec = json.dumps({'cluster': cluster, 'task': {'type': kind, 'index': index}})
            replicas.append(subprocess.Popen(argv, env=dict(env, CLUSTER_SPEC=spec),
                                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                             text=True))
        outputs = [replica.communicate(timeout=240)[0] for replica in replicas]
        for replica, output in zip(replicas, outputs):
            self.assertEqual(replica.returncode, 0, output)
        self.assertIn('as replica 2 of 3 on 100 of 300 rows', outputs[0])
        self.assertIn('Replica 2 done', outputs[0])
        self.assertIn('Model written to', outputs[2])
        import xgboost
        booster = xgboost.Booster(model_file=os.path.join(self.job_dir, 'model', 'model.bst'))
        root = booster.get_dump(with_stats=True)[0].splitlines()[0]
        self.assertIn('cover=300', root)  # all three shards' rows, not the master's 100
        with open(os.path.join(self.job_dir, 'artifacts', 'metadata.json')) as f:
            self.assertEqual(json.load(f)['replicas'], 3)
        with open(os.path.join(self.job_dir, 'artifacts', 'metrics.json')) as f:
            metrics = json.load(f)
        import numpy as np
        valid = np.loadtxt(os.path.join(self.mount, 'b', 'valid.csv'), delimiter=',')
        predictions = booster.predict(xgboost.DMatrix(valid[:, 1:]))
        self.assertAlmostEqual(float(np.sqrt(((predictions - valid[:, 0]) ** 2).mean())),
                               metrics['validation']['rmse'], places=6)


if __name__ == '__main__':
    unittest.main()
