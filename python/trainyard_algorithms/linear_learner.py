"""The built-in linear learner, as AI Platform Training runs gcr.io/cloud-ml-algos/linear_learner_cpu
(and _gpu) (docs/reference/ai-platform-training.md §12): documented there as TensorFlow 1.14, here
on Debian's python3-torch,
with the same arguments and the same outputs.

    python -m trainyard_algorithms.linear_learner --preprocess --model_type=classification \\
        --training_data_path=gs://b/data.csv --job-dir DIR

The arguments, the data and --preprocess, the output dirs and the tuning metric are the other
tabular algorithms' (runner.py, tabular.py). It trains a linear model for `max_steps` batches of
`batch_size` rows with the optimizer of `optimizer_type` (FTRL-Proximal, as TensorFlow's, with its
L1, L2 and L2-shrinkage strengths; Adam or SGD with the L1 and L2 penalties added to the loss),
and writes:

    model/model.pt            a TorchScript module: torch.jit.load(path)(features) gives, per row,
                              the probability of class 1 (binary classification), each class's
                              probabilities (more classes) or the predicted value (regression);
                              `features` are the rows as artifacts/metadata.json's transformation
                              gives them (feature_names), a float32 tensor; the model standardises
                              them itself with the training statistics
    artifacts/metadata.json   the preprocessing, the classes, the split's lines
    artifacts/metrics.json    loss and accuracy/auc (classification) or rmse/mae (regression) of
                              each data set

In a tuning trial the metric named by CLOUD_ML_HP_METRIC_TAG (accuracy, auc, rmse, mae, loss) on
the validation rows is reported through hypertune; accuracy or rmse for another tag.
`fit` and `save` are the training loop and the outputs that wide and deep shares.
"""

import json
import os
import sys

from trainyard_algorithms import runner, tabular

ALGORITHM = 'linear_learner'


def classes_of(targets, uri):
    """The number of classes of classification targets, which must be 0, 1, … (at least 2)."""
    labels = sorted(set(targets))
    if any(label != int(label) or label < 0 for label in labels):
        bad = next(label for label in labels if label != int(label) or label < 0)
        raise tabular.DataError('{}: --model_type=classification needs the target to be a class '
                                'number 0, 1, 2, …; got {}'.format(uri, bad))
    count = int(labels[-1]) + 1
    return max(count, 2)


def make_scorer(core, mean, scale, kind):
    """The module saved as the model: standardises, applies `core` and turns its outputs into
    probabilities (classification) or values (regression)."""
    import torch

    class Scorer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.core = core
            self.register_buffer('mean', mean)
            self.register_buffer('scale', scale)
            self.kind = kind  # 'binary', 'multiclass' or 'regression'

        def forward(self, features: torch.Tensor) -> torch.Tensor:
            out = self.core((features - self.mean) / self.scale)
            if self.kind == 'binary':
                return torch.sigmoid(out.squeeze(-1))
            if self.kind == 'multiclass':
                return torch.softmax(out, dim=-1)
            return out.squeeze(-1)

    return Scorer()


class Ftrl:
    """FTRL-Proximal (McMahan et al.), with TensorFlow's arguments, over torch parameters."""

    def __init__(self, params, lr, lr_power, initial_accumulator, l1, l2, l2_shrinkage):
        import torch
        self.params = list(params)
        self.lr, self.lr_power = lr, lr_power
        self.l1, self.l2, self.l2_shrinkage = l1, l2, l2_shrinkage
        self.accum = [torch.full_like(p, initial_accumulator) for p in self.params]
        self.linear = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        import torch
        with torch.no_grad():
            for p, n, z in zip(self.params, self.accum, self.linear):
                if p.grad is None:
                    continue
                g = p.grad
                g_shrunk = g + 2 * self.l2_shrinkage * p
                n_new = n + g * g
                sigma = (n_new.pow(-self.lr_power) - n.pow(-self.lr_power)) / self.lr
                z.add_(g_shrunk - sigma * p)
                n.copy_(n_new)
                quadratic = n_new.pow(-self.lr_power) / self.lr + 2 * self.l2
                p.copy_(torch.where(z.abs() > self.l1,
                                    (torch.sign(z) * self.l1 - z) / quadratic,
                                    torch.zeros_like(z)))


def optimizer_for(params, prefix, values):
    """(optimizer, penalty(params) added to the loss) for `<prefix>optimizer_type` and its
    arguments (prefix '' for the linear learner's, 'dnn_' for wide and deep's network)."""
    import torch
    kind = values[prefix + 'optimizer_type']
    lr = values[prefix + 'learning_rate']
    l1 = values.get(prefix + 'l1_regularization_strength', 0.0)
    l2 = values.get(prefix + 'l2_regularization_strength', 0.0)
    params = list(params)
    if kind == 'ftrl':
        return Ftrl(params, lr, values.get('learning_rate_power', -0.5),
                    values.get('initial_accumulator_value', 0.1), l1, l2,
                    values.get(prefix + 'l2_shrinkage_regularization_strength', 0.0)), None
    if kind == 'adam':
        optimizer = torch.optim.Adam(params, lr=lr, betas=(values.get(prefix + 'beta_1', 0.9),
                                                           values.get(prefix + 'beta_2', 0.999)))
    elif kind == 'adagrad':
        optimizer = torch.optim.Adagrad(params, lr=lr)
    elif kind == 'rmsprop':
        optimizer = torch.optim.RMSprop(params, lr=lr)
    else:
        optimizer = torch.optim.SGD(params, lr=lr)
    weights = [p for p in params if p.dim() > 1]

    def penalty():
        return sum(l1 * w.abs().sum() + l2 * (w * w).sum() for w in weights)

    return optimizer, (penalty if (l1 or l2) and weights else None)


def fit(scorer, optimizers, features, targets, kind, values):
    """Trains `scorer` for max_steps batches of batch_size rows (reshuffled each pass), each step
    with every (optimizer, penalty) of `optimizers`; the last batch's loss."""
    import torch
    loss_of = loss_function(kind)
    generator = torch.Generator().manual_seed(values.get('seed', 0))
    rows = features.shape[0]
    batch = min(values['batch_size'], rows)
    order = torch.randperm(rows, generator=generator)
    position = 0
    loss = torch.tensor(0.0)
    scorer.train()
    for _ in range(values['max_steps']):
        if position + batch > rows:
            order = torch.randperm(rows, generator=generator)
            position = 0
        index = order[position:position + batch]
        position += batch
        for optimizer, _ in optimizers:
            optimizer.zero_grad()
        loss = loss_of(raw_outputs(scorer, features[index]), targets[index])
        total = loss + sum(penalty() for _, penalty in optimizers if penalty)
        total.backward()
        for optimizer, _ in optimizers:
            optimizer.step()
    scorer.eval()
    return float(loss)


def raw_outputs(scorer, features):
    """The core's outputs (logits, or values) of standardised features."""
    return scorer.core((features - scorer.mean) / scorer.scale)


def loss_function(kind):
    import torch
    if kind == 'binary':
        return lambda out, y: torch.nn.functional.binary_cross_entropy_with_logits(
            out.squeeze(-1), y)
    if kind == 'multiclass':
        return lambda out, y: torch.nn.functional.cross_entropy(out, y.long())
    return lambda out, y: torch.nn.functional.mse_loss(out.squeeze(-1), y)


def evaluate(scorer, features, targets, kind, eval_rows=None):
    """The metrics of one data set (its first `eval_rows` rows when given)."""
    import torch
    if eval_rows is not None:
        features, targets = features[:eval_rows], targets[:eval_rows]
    with torch.no_grad():
        loss = float(loss_function(kind)(raw_outputs(scorer, features), targets))
        scores = scorer(features).numpy()
    y = targets.numpy()
    if kind == 'binary':
        return dict(runner.binary_metrics(y, scores, 0.5), loss=loss)
    if kind == 'multiclass':
        accuracy = float((scores.argmax(axis=1) == y).mean())
        return {'loss': loss, 'accuracy': accuracy, 'error': 1.0 - accuracy}
    return dict(runner.regression_metrics(y, scores), loss=loss)


def prepare(values):
    """(the data sets as tensors by name, the preprocessor, kind, classes, training URI and
    the rows of each set)."""
    import torch
    training, validation, test, uri = runner.load_sets(values)
    preprocessor = tabular.Preprocessor(training, uri, values['preprocess'])
    mean, _ = standardisation(preprocessor)
    sets = {}
    for name, rows in (('training', training), ('validation', validation), ('test', test)):
        if rows:
            features, targets = preprocessor.transform(rows)
            x = torch.tensor(features, dtype=torch.float32)
            # A value missing without --preprocess: the column's training mean.
            x = torch.where(torch.isnan(x), mean.expand_as(x), x)
            sets[name] = (x, torch.tensor(targets, dtype=torch.float32))
    kind, classes = 'regression', 1
    if values['model_type'] == 'classification':
        # Every set's classes, so that the validation and test rows are scored by the model.
        classes = classes_of([t for _, y in sets.values() for t in y.tolist()], uri)
        kind = 'binary' if classes == 2 else 'multiclass'
    rows = {'training': training, 'validation': validation, 'test': test}
    return sets, preprocessor, kind, classes, uri, rows


def standardisation(preprocessor):
    """(mean, scale) of each feature: a numeric column's training mean and deviation, 0 and 1
    for a one-hot category."""
    import torch
    mean, scale = [], []
    for stats in preprocessor.columns:
        if stats['type'] == 'numerical':
            mean.append(stats['mean'])
            scale.append(stats['stddev'] or 1.0)
        else:
            mean.extend([0.0] * len(stats['vocabulary']))
            scale.extend([1.0] * len(stats['vocabulary']))
    return torch.tensor(mean, dtype=torch.float32), torch.tensor(scale, dtype=torch.float32)


def save(scorer, sets, preprocessor, kind, classes, uri, rows, values, job_dir, name):
    """Evaluates each set, writes model/model.pt and artifacts/, reports the tuning metric."""
    import torch
    metrics = {}
    for set_name, (x, y) in sets.items():
        eval_rows = None
        if set_name != 'training' and values.get('eval_steps'):
            eval_rows = values['eval_steps'] * values['batch_size']
        metrics[set_name] = evaluate(scorer, x, y, kind, eval_rows)
        print('{} metrics: {}'.format(set_name, json.dumps(metrics[set_name], sort_keys=True)),
              flush=True)
    metadata = preprocessor.metadata()
    metadata.update(training_data_path=uri, validation_split=values['validation_split'],
                    test_split=values['test_split'], seed=values.get('seed', 0),
                    model_type=values['model_type'], classes=classes if kind != 'regression'
                    else None, torch_version=torch.__version__,
                    rows={n: tabular.line_numbers(r) for n, r in rows.items()})
    scripted = torch.jit.script(scorer)
    out = runner.write_outputs(
        job_dir, lambda directory: scripted.save(os.path.join(directory, 'model.pt')), metadata,
        dict(metrics, algorithm=name))
    print('Model written to {}'.format(os.path.join(out, 'model', 'model.pt')), flush=True)
    fallback = 'rmse' if kind == 'regression' else 'accuracy'
    runner.report_metric(metrics.get('validation', metrics['training']), fallback,
                         values['max_steps'])


def train(values, given, job_dir):
    import torch
    del given
    torch.manual_seed(values.get('seed', 0))
    sets, preprocessor, kind, classes, uri, rows = prepare(values)
    features = len(preprocessor.feature_names())
    mean, scale = standardisation(preprocessor)
    scorer = make_scorer(torch.nn.Linear(features, 1 if kind != 'multiclass' else classes),
                         mean, scale, kind)
    print('Training a linear {} model (PyTorch {}) on {} rows ({} features), validating on {}, '
          'testing on {}'.format(values['model_type'], torch.__version__,
                                 len(rows['training']), features, len(rows['validation']),
                                 len(rows['test'])), flush=True)
    x, y = sets['training']
    loss = fit(scorer, [optimizer_for(scorer.core.parameters(), '', values)], x, y, kind, values)
    print('step {}: training loss {:.6f}'.format(values['max_steps'], loss), flush=True)
    save(scorer, sets, preprocessor, kind, classes, uri, rows, values, job_dir, ALGORITHM)


def main(argv):
    return runner.main(argv, ALGORITHM, train)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
