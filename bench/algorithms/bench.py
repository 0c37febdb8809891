#!/usr/bin/python3
"""The built-in algorithms measured against their libraries called directly (issue #35,
"Measured"); run by hand, see README.md here.

For each available algorithm and each of scikit-learn's bundled datasets it suits (breast cancer,
wine, digits, diabetes), written as headerless CSVs (target first) split 80/20 by a seeded
shuffle into a training and a validation file: trainyard's algorithm program, run as the server
runs it (`/usr/bin/python3 -m trainyard_algorithms.<module> ARGS --job-dir DIR`, with
TRAINYARD_GCS_MOUNT), against the same library called directly (xgboost.train, a plain PyTorch
loop) with the same parameters on the same two files (for the big case, also with the
per-round evaluation of the validation file that the XGBoost algorithm logs), each in a fresh interpreter,
timed from start to exit (the median of --reps runs). The metric of both is the validation rows' AUC
(binary), accuracy (classes) or RMSE (regression): trainyard's from its artifacts/metrics.json,
the direct one from scikit-learn's metrics.

The overhead case: breast cancer repeated with Gaussian noise (each copy's features plus 5 % of
the column's deviation; the training and validation rows copied apart, after the split) into a
file big enough that XGBoost trains for at least 10 s (150 rounds of depth 6). Then the
same job --reps times end to end through a real `trainyard serve` (POSTed to its jobs API, polled
until SUCCEEDED), each run beside both direct calls made just before it: the median submit to
SUCCEEDED against the medians of those direct calls.

    /usr/bin/python3 bench/algorithms/bench.py [--reps 3] [--copies 150] [--rounds 150]
        [--trainyard build/release/trainyard] [--quick]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'bench', 'scenarios'))
PYTHON = '/usr/bin/python3'
BUCKET = 'bench'

XGB = ['--num_round=50', '--max_depth=4', '--eta=0.3']
TORCH = ['--optimizer_type=adam', '--learning_rate=0.01', '--max_steps=1000', '--batch_size=100']
DEEP = TORCH + ['--dnn_optimizer_type=adam', '--dnn_learning_rate=0.01', '--hidden_units=30,30,30']
# (algorithm, its module, dataset, metric, trainyard's arguments besides the data paths)
CASES = [
    ('xgboost', 'xgboost_train', 'breast_cancer', 'auc', XGB + ['--objective=binary:logistic']),
    ('xgboost', 'xgboost_train', 'wine', 'accuracy',
     XGB + ['--objective=multi:softprob', '--num_class=3']),
    ('xgboost', 'xgboost_train', 'digits', 'accuracy',
     XGB + ['--objective=multi:softmax', '--num_class=10']),
    ('xgboost', 'xgboost_train', 'diabetes', 'rmse', XGB + ['--objective=reg:squarederror']),
    ('xgboost_distributed', 'xgboost_dist', 'breast_cancer', 'auc',
     XGB + ['--objective=binary:logistic']),
    ('xgboost_distributed', 'xgboost_dist', 'diabetes', 'rmse',
     XGB + ['--objective=reg:squarederror']),
    ('linear_learner', 'linear_learner', 'breast_cancer', 'auc',
     TORCH + ['--model_type=classification']),
    ('linear_learner', 'linear_learner', 'wine', 'accuracy',
     TORCH + ['--model_type=classification']),
    ('linear_learner', 'linear_learner', 'diabetes', 'rmse', TORCH + ['--model_type=regression']),
    ('wide_deep', 'wide_deep', 'breast_cancer', 'auc', DEEP + ['--model_type=classification']),
    ('wide_deep', 'wide_deep', 'wine', 'accuracy', DEEP + ['--model_type=classification']),
    ('wide_deep', 'wide_deep', 'diabetes', 'rmse', DEEP + ['--model_type=regression']),
]

# The direct calls: one program, given (algorithm, metric, the arguments as JSON, training CSV,
# validation CSV, output dir), that prints the metric. The data are read with numpy, the model
# saved with the library's own call, as the algorithm does.
DIRECT = r'''
import json, os, sys
import numpy as np
from sklearn import metrics as skm
algorithm, metric, args, train_csv, valid_csv, out = sys.argv[1:]
args = json.loads(args)
train = np.loadtxt(train_csv, delimiter=',', ndmin=2)
valid = np.loadtxt(valid_csv, delimiter=',', ndmin=2)
x, y, vx, vy = train[:, 1:], train[:, 0], valid[:, 1:], valid[:, 0]
os.makedirs(out, exist_ok=True)
if algorithm.startswith('xgboost'):
    import xgboost as xgb
    params = {k: v for k, v in args.items() if k not in ('num_round', 'evals')}
    params['nthread'] = os.cpu_count() or 1
    train, valid = xgb.DMatrix(x, label=y), xgb.DMatrix(vx, label=vy)
    # evals: the per-round evaluation of the validation set that the algorithm logs, when asked.
    evals = [(valid, 'validation')] if args.get('evals') else []
    booster = xgb.train(params, train, int(args['num_round']), evals=evals)
    booster.save_model(os.path.join(out, 'model.bst'))
    scores = booster.predict(xgb.DMatrix(vx))
else:
    import torch
    torch.manual_seed(0)
    classification = args['model_type'] == 'classification'
    classes = int(max(y.max(), vy.max())) + 1 if classification else 1
    outputs = 1 if classes <= 2 else classes
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    tx = torch.tensor((x - mean) / scale, dtype=torch.float32)
    ty = torch.tensor(y, dtype=torch.float32)
    wide = torch.nn.Linear(x.shape[1], outputs)
    parts = [wide]
    if algorithm == 'wide_deep':
        layers, width = [], x.shape[1]
        for units in (int(u) for u in args['hidden_units'].split(',')):
            layers += [torch.nn.Linear(width, units), torch.nn.ReLU()]
            width = units
        deep = torch.nn.Sequential(*layers, torch.nn.Linear(width, outputs))
        parts.append(deep)
    optimizers = [torch.optim.Adam(wide.parameters(), lr=float(args['learning_rate']))]
    if algorithm == 'wide_deep':
        optimizers.append(torch.optim.Adam(deep.parameters(), lr=float(args['dnn_learning_rate'])))
    def forward(features):
        return sum(part(features) for part in parts)
    if not classification:
        loss_of = lambda o, t: torch.nn.functional.mse_loss(o.squeeze(-1), t)
    elif outputs == 1:
        loss_of = lambda o, t: torch.nn.functional.binary_cross_entropy_with_logits(o.squeeze(-1), t)
    else:
        loss_of = lambda o, t: torch.nn.functional.cross_entropy(o, t.long())
    generator = torch.Generator().manual_seed(0)
    batch, rows = int(args['batch_size']), tx.shape[0]
    order, position = torch.randperm(rows, generator=generator), 0
    for _ in range(int(args['max_steps'])):
        if position + batch > rows:
            order, position = torch.randperm(rows, generator=generator), 0
        index = order[position:position + batch]
        position += batch
        for o in optimizers:
            o.zero_grad()
        loss_of(forward(tx[index]), ty[index]).backward()
        for o in optimizers:
            o.step()
    torch.save([p.state_dict() for p in parts], os.path.join(out, 'model.pt'))
    with torch.no_grad():
        raw = forward(torch.tensor((vx - mean) / scale, dtype=torch.float32))
    scores = (torch.sigmoid(raw.squeeze(-1)) if outputs == 1 and classification else
              raw.squeeze(-1) if outputs == 1 else raw).numpy()
if metric == 'auc':
    value = skm.roc_auc_score(vy, scores)
elif metric == 'accuracy':
    value = skm.accuracy_score(vy, scores.argmax(axis=1) if scores.ndim == 2 else scores)
else:
    value = skm.mean_squared_error(vy, scores) ** 0.5
print(json.dumps({'metric': float(value)}))
'''


def write_datasets(mount, copies):
    """{name: (training URI, validation URI, training rows)} written under mount/BUCKET."""
    import numpy as np
    from sklearn import datasets
    loaders = {'breast_cancer': datasets.load_breast_cancer, 'wine': datasets.load_wine,
               'digits': datasets.load_digits, 'diabetes': datasets.load_diabetes}
    os.makedirs(os.path.join(mount, BUCKET), exist_ok=True)
    out = {}
    def noisy_copies(x, y, count, rng, scale):
        noise = rng.normal(size=(len(y) * count, x.shape[1])) * scale * 0.05
        return np.tile(x, (count, 1)) + noise, np.tile(y, count)

    for name, load in loaders.items():
        x, y = load(return_X_y=True)
        order = np.random.RandomState(0).permutation(len(y))
        cut = int(round(len(y) * 0.8))
        parts = {name: ((x[order[:cut]], y[order[:cut]]), (x[order[cut:]], y[order[cut:]]))}
        if name == 'breast_cancer' and copies:
            # Copies of each part on its own side of the split: no validation row is a noisy
            # copy of a training row.
            rng, scale = np.random.RandomState(1), x.std(axis=0)
            parts['breast_cancer_big'] = tuple(noisy_copies(px, py, copies, rng, scale)
                                               for px, py in parts[name])
        for set_name, sides in parts.items():
            uris = []
            for side, (features, targets) in zip(('train', 'valid'), sides):
                path = os.path.join(mount, BUCKET, '{}-{}.csv'.format(set_name, side))
                np.savetxt(path, np.column_stack([targets, features]), delimiter=',',
                           fmt='%.10g')
                uris.append('gs://{}/{}-{}.csv'.format(BUCKET, set_name, side))
            out[set_name] = (uris[0], uris[1], len(sides[0][1]))
    return out


def args_dict(args):
    return dict(a[2:].split('=', 1) for a in args)


def timed(argv, env=None):
    start = time.monotonic()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - start
    if proc.returncode != 0:
        raise RuntimeError('{} failed:\n{}'.format(' '.join(argv), proc.stdout + proc.stderr))
    return elapsed, proc.stdout


def run_trainyard(mount, module, args, data, metric, job_dir):
    """(seconds, validation metric) of the algorithm's program as the server runs it."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, 'python'), TRAINYARD_GCS_MOUNT=mount)
    train_uri, valid_uri, _ = data
    seconds, _ = timed([PYTHON, '-m', 'trainyard_algorithms.' + module, *args,
                        '--training_data_path=' + train_uri,
                        '--validation_data_path=' + valid_uri, '--job-dir', job_dir], env)
    with open(os.path.join(job_dir, 'artifacts', 'metrics.json'), encoding='utf-8') as f:
        return seconds, json.load(f)['validation'][metric]


def run_direct(mount, algorithm, args, data, metric, out, evals=False):
    params = args_dict(args)
    if evals:
        params['evals'] = 1
    paths = [os.path.join(mount, uri[len('gs://'):]) for uri in data[:2]]
    seconds, stdout = timed([PYTHON, '-c', DIRECT, algorithm, metric, json.dumps(params),
                             *paths, out])
    return seconds, json.loads(stdout.strip().splitlines()[-1])['metric']


def measure(mount, tmp, case, data, reps, evals=False):
    """One row; with `evals`, also the direct call evaluating the validation set each round as
    the XGBoost algorithm does (`direct_evals_s`)."""
    algorithm, module, dataset, metric, args = case
    ty_times, direct_times, evals_times = [], [], []
    for rep in range(reps):
        if evals:
            evals_times.append(run_direct(mount, algorithm, args, data, metric,
                                          os.path.join(tmp, 'direct', algorithm, dataset),
                                          evals=True)[0])
        seconds, ty_metric = run_trainyard(mount, module, args, data, metric,
                                           os.path.join(mount, BUCKET, 'out', algorithm,
                                                        dataset, str(rep)))
        ty_times.append(seconds)
        seconds, direct_metric = run_direct(mount, algorithm, args, data, metric,
                                            os.path.join(tmp, 'direct', algorithm, dataset))
        direct_times.append(seconds)
    row = {'algorithm': algorithm, 'dataset': dataset, 'rows': data[2], 'metric': metric,
           'trainyard': ty_metric, 'direct': direct_metric,
           'trainyard_s': statistics.median(ty_times), 'direct_s': statistics.median(direct_times)}
    row['overhead'] = row['trainyard_s'] / row['direct_s'] - 1
    print('{algorithm:20} {dataset:18} {rows:>7} {metric:8} trainyard {trainyard:.4f} direct '
          '{direct:.4f}  {trainyard_s:7.2f} s vs {direct_s:7.2f} s ({overhead:+.1%})'
          .format(**row), flush=True)
    if evals:
        row['direct_evals_s'] = statistics.median(evals_times)
        row['overhead_evals'] = row['trainyard_s'] / row['direct_evals_s'] - 1
        print('{:20} {:18} direct with the per-round evaluation {direct_evals_s:7.2f} s '
              '({overhead_evals:+.1%})'.format('', '', **row), flush=True)
    return row


def through_serve(binary, tmp, module_args, data, reps):
    """Submit → SUCCEEDED of the big XGBoost job through a real `trainyard serve`, `reps` times,
    each beside both peers run by hand just before it (xgboost.train alone, and with the
    per-round evaluation): on a shared machine a single run swings by a quarter either way, so a
    served run is compared with direct calls made within a minute of it, and the medians are."""
    import bench_lib
    mount = os.path.join(tmp, 'buckets')
    served, direct, direct_evals = [], [], []
    with bench_lib.Server(binary, tmp, name='serve') as server:
        served_mount = os.path.join(str(server.data), 'buckets')
        os.makedirs(os.path.join(served_mount, BUCKET), exist_ok=True)
        for uri in data[:2]:
            name = uri[len('gs://'):]
            os.link(os.path.join(mount, name), os.path.join(served_mount, name))
        api = server.api()
        for rep in range(reps):
            out = os.path.join(tmp, 'direct', 'serve-peer')
            direct.append(run_direct(mount, 'xgboost', module_args, data, 'auc', out)[0])
            direct_evals.append(run_direct(mount, 'xgboost', module_args, data, 'auc', out,
                                           evals=True)[0])
            job_id = 'bench_xgb_{}'.format(rep)
            job = {'jobId': job_id, 'trainingInput': {
                'scaleTier': 'BASIC', 'region': 'us-central1',
                'masterConfig': {'imageUri': 'gcr.io/cloud-ml-algos/boosted_trees:latest'},
                'jobDir': 'gs://{}/serve-out/{}'.format(BUCKET, rep),
                'args': [*module_args, '--training_data_path=' + data[0],
                         '--validation_data_path=' + data[1]]}}
            start = time.monotonic()
            api.create('p', job)
            done, _ = bench_lib.wait_terminal(api, 'p', job_id, interval=0.05, timeout=1800)
            served.append(time.monotonic() - start)
            if done['state'] != 'SUCCEEDED':
                raise RuntimeError('the served job ended {}: {}'.format(done['state'], done))
    result = {'serve_s': statistics.median(served), 'direct_s': statistics.median(direct),
              'direct_evals_s': statistics.median(direct_evals), 'serve_runs': served,
              'direct_runs': direct, 'direct_evals_runs': direct_evals}
    result['overhead'] = result['serve_s'] / result['direct_s'] - 1
    result['overhead_evals'] = result['serve_s'] / result['direct_evals_s'] - 1
    print('through trainyard serve: submit to SUCCEEDED {serve_s:.2f} s vs direct {direct_s:.2f} s '
          '({overhead:+.1%}), vs direct with the per-round evaluation {direct_evals_s:.2f} s '
          '({overhead_evals:+.1%}), medians of {reps} runs side by side'
          .format(reps=reps, **result), flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--reps', type=int, default=3)
    parser.add_argument('--copies', type=int, default=150, help='copies of breast cancer')
    parser.add_argument('--rounds', type=int, default=150, help='rounds of the big case')
    parser.add_argument('--trainyard', default=os.path.join(ROOT, 'build', 'release', 'trainyard'))
    parser.add_argument('--quick', action='store_true', help='one rep, no big case, no serve')
    parser.add_argument('--big-only', action='store_true', help='the big case and serve only')
    parser.add_argument('--json', help='write the rows here')
    opts = parser.parse_args()
    reps = 1 if opts.quick else opts.reps
    tmp = tempfile.mkdtemp(prefix='ty-bench-algorithms-')
    mount = os.path.join(tmp, 'buckets')
    data = write_datasets(mount, 0 if opts.quick else opts.copies)
    rows = [] if opts.big_only else [measure(mount, tmp, case, data[case[2]], reps)
                                     for case in CASES]
    result = {'rows': rows}
    if not opts.quick:
        big_args = ['--num_round={}'.format(opts.rounds), '--max_depth=6',
                    '--objective=binary:logistic']
        for algorithm, module in (('xgboost', 'xgboost_train'),
                                  ('xgboost_distributed', 'xgboost_dist')):
            rows.append(measure(mount, tmp, (algorithm, module, 'breast_cancer_big', 'auc',
                                             big_args), data['breast_cancer_big'], reps,
                                evals=True))
        result['serve'] = through_serve(opts.trainyard, tmp, big_args, data['breast_cancer_big'],
                                        reps)
    if opts.json:
        with open(opts.json, 'w', encoding='utf-8') as f:
            json.dump(result, f, indent=2)
    subprocess.run(['rm', '-rf', tmp], check=False)


if __name__ == '__main__':
    main()
