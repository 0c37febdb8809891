"""The built-in distributed XGBoost algorithm, as AI Platform Training runs
gcr.io/cloud-ml-algos/xgboost_dist (docs/reference/ai-platform-training.md §12), on Debian's
python3-xgboost and its collective (Rabit).

    python -m trainyard_algorithms.xgboost_dist --training_data_path='gs://b/train-*.csv' \\
        --validation_data_path=gs://b/valid.csv --objective=binary:logistic --job-dir DIR

Every replica of the job (the master and the workers; the server refuses parameter servers and
evaluators at submit) runs this program with the same arguments. They meet over XGBoost's own
collective: the master starts `xgboost.tracker.RabitTracker` on its own cluster address (CLUSTER_SPEC,
else TF_CONFIG: trainyard gives each replica the cluster's addresses) and every replica, the master
included, joins it as rank 0 (the master) or 1 + its index (worker i). A job of a single replica
trains alone, without the tracker.

The data: --training_data_path and --validation_data_path are gs:// paths or patterns (`*`, `?`,
`[…]`) of CSV files (no header, the target first, no --preprocess: numbers only, blank values
missing). Every replica reads the files of a pattern in name order, as one list of rows, and keeps
its shard: the rows whose place in that list, modulo the number of replicas, is its rank. The
trees are grown together (XGBoost's allreduce of the gradient statistics), so every replica ends
with the same model. The master then leaves the collective, evaluates the model on all of the
training and validation rows, and writes under the job dir (or <job dir>/<trial> in a tuning trial)
what the single-replica algorithm writes (xgboost_train.finish: model/model.bst, artifacts/
metadata.json and metrics.json, the hypertune metric); the workers write nothing. Every
--model_saving_period rounds the master also keeps the model so far in checkpoints/model.bst;
--eval_log_period logs the evaluation every that many rounds (0: never); --silent=1 quiets XGBoost.
"""

import glob
import json
import os
import sys

from trainyard_algorithms import runner, tabular, xgboost_train

ALGORITHM = 'xgboost_distributed'
TRACKER_WAIT_SECONDS = 600  # how long the master waits for the workers to leave the collective
# Rabit waits 2, 4, 6, … seconds between tries to reach the tracker: about 90 s in all.
CONNECT_RETRIES = 10


def cluster():
    """(rank, number of replicas, (tracker host, tracker port) or None) of this replica, from
    CLUSTER_SPEC (which always names the master "master"), else TF_CONFIG ("chief" or "master")."""
    text = os.environ.get('CLUSTER_SPEC') or os.environ.get('TF_CONFIG') or '{}'
    try:
        spec = json.loads(text)
    except ValueError:
        raise runner.UsageError('the cluster description (CLUSTER_SPEC/TF_CONFIG) is not JSON')
    members = spec.get('cluster') or {}
    masters = members.get('master') or members.get('chief') or []
    workers = members.get('worker') or []
    task = spec.get('task') or {}
    kind = task.get('type', 'master')
    index = int(task.get('index', 0))
    if kind not in ('master', 'chief', 'worker'):
        raise runner.UsageError('the built-in distributed XGBoost algorithm runs on the master '
                                'and workers, not on a {}'.format(kind))
    world = max(1, len(masters)) + len(workers)
    if world == 1:
        return 0, 1, None
    host, _, port = masters[0].rpartition(':')
    rank = 0 if kind in ('master', 'chief') else 1 + index
    return rank, world, (host, int(port))


def matching_uris(uri):
    """The gs:// URIs a path or pattern names, in name order; a DataError when none does."""
    if not glob.has_magic(uri):
        return [uri]
    mount_path = tabular.local_path(uri)
    prefix = mount_path[:len(mount_path) - len(uri[len('gs://'):])]
    paths = sorted(p for p in glob.glob(mount_path) if os.path.isfile(p))
    if not paths:
        raise tabular.DataError('{}: no object matches'.format(uri))
    return ['gs://' + p[len(prefix):] for p in paths]


def read_rows(uri):
    """The rows of every file `uri` names, in order, each checked as the single-replica
    algorithm checks its file (tabular.read_csv, a target on every row)."""
    rows = []
    width = None
    for each in matching_uris(uri):
        these = tabular.read_csv(each)
        tabular.check_targets(these, each)
        if width is not None and len(these[0][1]) != width:
            raise tabular.DataError('{}: {} columns, but {} has {}'.format(
                each, len(these[0][1]), uri, width))
        width = len(these[0][1])
        rows.extend(these)
    return rows


def shard(rows, rank, world):
    """The rows of replica `rank`: every `world`-th, from the `rank`-th."""
    return rows[rank::world]


class Checkpoints:
    """Every `period` rounds, the master's model so far as <out>/checkpoints/model.bst, written
    beside and renamed into place."""

    def __init__(self, job_dir, period):
        self.directory = os.path.join(runner.output_dir(job_dir), 'checkpoints')
        self.period = period

    def callback(self):
        import xgboost
        checkpoints = self

        class Save(xgboost.callback.TrainingCallback):
            def after_iteration(self, model, epoch, evals_log):
                if (epoch + 1) % checkpoints.period == 0:
                    os.makedirs(checkpoints.directory, exist_ok=True)
                    temporary = os.path.join(checkpoints.directory, '.model.tmp.bst')
                    model.save_model(temporary)
                    os.replace(temporary, os.path.join(checkpoints.directory, 'model.bst'))
                return False

        return Save()


def train(values, given, job_dir):
    import xgboost
    from xgboost import collective, tracker

    rank, world, address = cluster()
    rabit = None
    if address is not None and rank == 0:  # first, so the workers find it while it reads
        rabit = tracker.RabitTracker(host_ip=address[0], n_workers=world, port=address[1],
                                     sortby='task')
        rabit.start(world)
    uri = values['training_data_path']
    training = read_rows(uri)
    validation = read_rows(values['validation_data_path']) if values.get(
        'validation_data_path') else []
    if validation and len(validation[0][1]) != len(training[0][1]):
        raise tabular.DataError('the training and validation files have different numbers of '
                                'columns')
    preprocessor = tabular.Preprocessor(training, uri, False)  # all rows: the same on each replica
    objective = values['objective']
    eval_metric = values.get('eval_metric') or xgboost_train.default_metric(objective)
    params = xgboost_train.xgboost_params(given, objective)
    params['eval_metric'] = eval_metric
    if values['silent']:
        params['verbosity'] = 0
    matrices = xgboost_train.to_matrices(preprocessor, (
        ('training', shard(training, rank, world)), ('validation', shard(validation, rank, world))))
    if 'training' not in matrices:
        raise tabular.DataError('{}: {} rows for {} replicas leave replica {} none'.format(
            uri, len(training), world, rank))
    print('Training XGBoost {} as replica {} of {} on {} of {} rows ({} features)'.format(
        xgboost.__version__, rank, world, len(shard(training, rank, world)), len(training),
        len(preprocessor.feature_names())), flush=True)

    if address is not None:
        collective.init(DMLC_TRACKER_URI=address[0], DMLC_TRACKER_PORT=address[1],
                        DMLC_TASK_ID='{:06d}'.format(rank),
                        DMLC_WORKER_CONNECT_RETRY=CONNECT_RETRIES)
        if collective.get_world_size() != world:
            raise tabular.DataError('replica {} joined a collective of {}, not {}'.format(
                rank, collective.get_world_size(), world))
    try:
        callbacks = [Checkpoints(job_dir, values['model_saving_period']).callback()] if (
            rank == 0) else []
        booster = xgboost_train.boost(params, matrices, values['num_round'], uri,
                                      verbose_eval=values['eval_log_period'] or False,
                                      callbacks=callbacks)
    finally:
        if address is not None:
            collective.finalize()
    if rabit is not None:
        rabit.thread.join(TRACKER_WAIT_SECONDS)
    if rank != 0:
        print('Replica {} done; the master writes the model'.format(rank), flush=True)
        return
    # The master alone, out of the collective: the metrics of all the rows.
    matrices = xgboost_train.to_matrices(preprocessor, (('training', training),
                                                        ('validation', validation)))
    metadata = preprocessor.metadata()
    metadata.update(training_data_path=uri, eval_metric=eval_metric, replicas=world,
                    sharding='row i of the files in name order goes to replica i mod {}'
                    .format(world),
                    files={name: matching_uris(values[name + '_data_path'])
                           for name in ('training', 'validation')
                           if values.get(name + '_data_path')})
    xgboost_train.finish(booster, matrices, values, metadata, job_dir)


def main(argv):
    return runner.main(argv, ALGORITHM, train)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
