"""The built-in distributed XGBoost algorithm, as AI Platform Training runs
gcr.io/cloud-ml-algos/xgboost_dist (docs/reference/ai-platform-training.md §12), on Debian's
python3-xgboost and its collective (Rabit).

    python -m trainyard_algorithms.xgboost_dist --training_data_path='gs://b/train-*.csv' \\
        --validation_data_path=gs://b/valid.csv --objective=binary:logistic --job-dir DIR

Every replica of the job (the master and the workers; the server refuses parameter servers and
evaluators at submit) runs this program with the same arguments. They meet over XGBoost's own
collective: the master starts `xgboost.tracker.RabitTracker` on a free port of its host and
answers on its own cluster address (CLUSTER_SPEC, else TF_CONFIG: trainyard gives each replica the
cluster's addresses) with that port (liveness.Responder); every replica, the master included,
joins the tracker as rank 0 (the master) or 1 + its index (worker i). A job of a single replica
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
--model_saving_period rounds the master also keeps the model so far in checkpoints/model.bst (0
or less: never); --eval_log_period logs the evaluation every that many rounds (0 or less: never);
--silent=1 quiets XGBoost.

A replica that dies while training (a crash, the OOM killer) breaks the others' allreduce:
XGBoost 1.7's collective cannot take a replica back into a training under way, so a restart of
that replica alone cannot resume it. Each survivor then exits 1 saying which replicas the
collective lost (those whose cluster address refuses a connection: every replica answers on its
own), so the job FAILS with an errorMessage naming the dead replica, and writes nothing under
model/. It never calls collective.finalize() after such a failure: that waits for the tracker,
which may never answer (a hang, measured). A replica that freezes instead (SIGSTOP, a data read
that never returns) breaks nothing, so the others would wait for ever: each replica's watchdog
(liveness.py) finds it (no answer on its address while training, or no byte read for a minute
while the others wait) and exits 1 naming it, within liveness.BOUND_SECONDS of a stop in training.
"""

import glob
import json
import os
import sys
import time

from trainyard_algorithms import liveness, runner, tabular, xgboost_train

ALGORITHM = 'xgboost_distributed'
TRACKER_WAIT_SECONDS = 600  # how long the master waits for the workers to leave the collective
# Rabit waits 2, 4, 6, … seconds between tries to reach the tracker: about 90 s in all.
CONNECT_RETRIES = 10
JOIN_SECONDS = 90  # how long a worker waits for the master to answer with the tracker's port
PROBE_TRIES = 4  # a replica that finds none gone looks again, this many times in all
PROBE_PAUSE_SECONDS = 0.25  # between those looks: well within a restarted replica's start


def members():
    """[(name, (host, port))] of every replica in rank order ("master 0", "worker 0", …), from
    CLUSTER_SPEC, else TF_CONFIG."""
    spec = json.loads(os.environ.get('CLUSTER_SPEC') or os.environ.get('TF_CONFIG') or '{}')
    cluster = spec.get('cluster') or {}
    named = [('master 0', (cluster.get('master') or cluster.get('chief') or [])[:1])]
    named.append(('worker', cluster.get('worker') or []))
    out = []
    for name, addresses in named:
        for index, address in enumerate(addresses):
            host, _, port = address.rpartition(':')
            out.append((name if name == 'master 0' else '{} {}'.format(name, index),
                        (host, int(port))))
    return out


def lost_replicas(rank):
    """The names of the other replicas whose address refuses a connection: those that died. A
    replica trainyard restarts listens again only after its program has started anew, so just
    after a failure its address refuses."""
    return [name for other, (name, address) in enumerate(members())
            if other != rank and liveness.probe(address) == 'refused']


def collective_failure(rank, error):
    """The DataError of replica `rank` whose collective failed in training (`error`, boost's):
    XGBoost 1.7's collective cannot take a replica back into a training under way, so the job
    cannot go on without every replica; it names those found gone."""
    lost = lost_replicas(rank)
    for _ in range(PROBE_TRIES - 1):
        if lost:
            break
        time.sleep(PROBE_PAUSE_SECONDS)
        lost = lost_replicas(rank)
    who = ('the collective lost {}'.format(' and '.join(lost)) if lost else
           'a replica left the collective')
    return tabular.DataError(
        'replica {} of the distributed XGBoost job stopped: {} while training, and the '
        'algorithm cannot go on without every replica (XGBoost: {})'.format(
            members()[rank][0], who, str(error).rpartition(': ')[2]))


def stopped_message(rank, progress, found):
    """What replica `rank` says when its watchdog finds the replicas `found` stopped."""
    return ('replica {} of the distributed XGBoost job stopped: {} while {}, and the algorithm '
            'cannot go on without every replica (a replica that stops answering while training '
            'fails the job within {} s; one whose data read stops, within {} s)'.format(
                members()[rank][0], found, liveness.PHASES[progress.phase],
                liveness.BOUND_SECONDS, liveness.READ_BOUND_SECONDS))


def watch(rank, progress):
    """The started watchdog of replica `rank` over the others: when one stops, this replica says
    so and exits 1 at once (its main thread is waiting inside XGBoost's collective)."""
    def on_stop(found):
        print('ERROR: {}'.format(stopped_message(rank, progress, found)), file=sys.stderr,
              flush=True)
        os._exit(1)  # pylint: disable=protected-access

    peers = [member for other, member in enumerate(members()) if other != rank]
    return liveness.Watchdog(progress, peers, on_stop).start()


def tracker_port(rank, address):
    """The port of the tracker, from the master's answer on its cluster address `address`; a
    DataError when the master has not answered within JOIN_SECONDS."""
    deadline = time.monotonic() + JOIN_SECONDS
    while True:
        answer = liveness.probe(address)
        if isinstance(answer, tuple) and answer[2] > 0:
            return answer[2]
        if time.monotonic() > deadline:
            raise tabular.DataError(
                'replica {} of the distributed XGBoost job found no master answering at {}:{} '
                'within {} s'.format(members()[rank][0], address[0], address[1], JOIN_SECONDS))
        time.sleep(PROBE_PAUSE_SECONDS)


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


def read_rows(uri, on_read=None):
    """The rows of every file `uri` names, in order, each checked as the single-replica
    algorithm checks its file (tabular.read_csv, a target on every row)."""
    parts = []
    width = None
    for each in matching_uris(uri):
        these = tabular.read_csv(each, on_read)
        tabular.check_targets(these, each)
        if width is not None and len(these[0][1]) != width:
            raise tabular.DataError('{}: {} columns, but {} has {}'.format(
                each, len(these[0][1]), uri, width))
        width = len(these[0][1])
        parts.append(these)
    return tabular.concat(parts)


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
    progress = liveness.Progress()
    rabit = responder = watchdog = None
    if address is not None:
        if rank == 0:  # first, so the workers find it while it reads
            rabit = tracker.RabitTracker(host_ip=address[0], n_workers=world, port=0,
                                         sortby='task')
            rabit.start(world)
            progress.tracker_port = rabit.port
        responder = liveness.Responder(members()[rank][1], progress)
        if rank == 0 and responder.server is None:
            raise tabular.DataError('the master cannot listen on its cluster address {}:{}'
                                    .format(*address))
        watchdog = watch(rank, progress)
    uri = values['training_data_path']
    training = read_rows(uri, progress.step)
    validation = read_rows(values['validation_data_path'], progress.step) if values.get(
        'validation_data_path') else []
    progress.enter('checking')
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
        progress.enter('joining')
        port = rabit.port if rabit is not None else tracker_port(rank, members()[0][1])
        collective.init(DMLC_TRACKER_URI=address[0], DMLC_TRACKER_PORT=port,
                        DMLC_TASK_ID='{:06d}'.format(rank),
                        DMLC_WORKER_CONNECT_RETRY=CONNECT_RETRIES)
        if collective.get_world_size() != world:
            raise tabular.DataError('replica {} joined a collective of {}, not {}'.format(
                rank, collective.get_world_size(), world))
    progress.enter('training')
    try:
        saving, logging = values['model_saving_period'], values['eval_log_period']
        callbacks = [progress.callback()]
        if rank == 0 and saving > 0:
            callbacks.append(Checkpoints(job_dir, saving).callback())
        booster = xgboost_train.boost(params, matrices, values['num_round'], uri, logging,
                                      callbacks)
    except tabular.DataError as error:
        if address is None:
            raise
        watchdog.stop()
        # No collective.finalize(): it asks the tracker to see this replica out, and after a
        # failure that tracker may never answer (the process would hang, measured).
        raise collective_failure(rank, error) from None
    progress.enter('done')
    if address is not None:
        watchdog.stop()
        collective.finalize()
        responder.close()
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
