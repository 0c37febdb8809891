"""The built-in wide and deep algorithm, as AI Platform Training runs
gcr.io/cloud-ml-algos/wide_deep_learner_cpu (and _gpu) (docs/reference/ai-platform-training.md
§12): documented there as
TensorFlow 1.14's DNNLinearCombined model, here on Debian's python3-torch, with the same arguments
and outputs.

    python -m trainyard_algorithms.wide_deep --preprocess --model_type=classification \\
        --training_data_path=gs://b/data.csv --hidden_units=64,32 --job-dir DIR

The model's output is the sum of a wide part, a linear model of the numeric columns (and of the
categorical ones, one-hot, with --use_wide), trained by the linear learner's arguments
(--optimizer_type, --learning_rate, the regularization strengths), and a deep part, a ReLU network
of --hidden_units over the numeric columns and the categorical ones (one-hot, or through a learnt
embedding each with --embed_categories), with dropout --dnn_dropout, trained by the dnn_
arguments. The data, the training loop, the outputs (model/model.pt, a TorchScript module used as
the linear learner's) and the tuning metric are the linear learner's (linear_learner.py).
"""

import math
import sys

from trainyard_algorithms import linear_learner, runner

ALGORITHM = 'wide_deep'


def feature_blocks(preprocessor):
    """(numeric feature indexes, [(first, count) of each categorical column's one-hot block])."""
    numeric, blocks = [], []
    position = 0
    for stats in preprocessor.columns:
        if stats['type'] == 'numerical':
            numeric.append(position)
            position += 1
        else:
            count = len(stats['vocabulary'])
            blocks.append((position, count))
            position += count
    return numeric, blocks


def embedding_size(vocabulary):
    """TensorFlow's rule of thumb for an embedding's dimension: about 6 x vocabulary^(1/4)."""
    return max(1, int(round(6 * math.pow(vocabulary, 0.25))))


def make_core(preprocessor, outputs, values):
    """The wide and deep module: forward(standardised features) gives `outputs` logits/values."""
    import torch

    numeric, blocks = feature_blocks(preprocessor)
    categorical = [first + i for first, count in blocks for i in range(count)]
    wide_index = numeric + (categorical if values['use_wide'] else [])
    # --embed_categories: each block's one-hot times its own embedding matrix, as one masked
    # (block-diagonal) matrix over all the one-hot features.
    sizes = [embedding_size(count) for _, count in blocks] if values['embed_categories'] else []
    mask = torch.zeros(sum(sizes), len(categorical))
    row = column = 0
    for size, (_, count) in zip(sizes, blocks):
        mask[row:row + size, column:column + count] = 1.0
        row += size
        column += count
    deep_inputs = len(numeric) + (sum(sizes) if sizes else len(categorical))

    class WideDeep(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer('wide_index', torch.tensor(wide_index, dtype=torch.long))
            self.register_buffer('numeric_index', torch.tensor(numeric, dtype=torch.long))
            self.register_buffer('categorical_index',
                                 torch.tensor(categorical, dtype=torch.long))
            self.register_buffer('embedding_mask', mask)
            self.embed = bool(sizes)
            self.wide = torch.nn.Linear(len(wide_index), outputs)
            self.embedding = torch.nn.Parameter(torch.randn(mask.shape) * 0.1 * mask)
            layers = []
            width = deep_inputs
            for units in values['hidden_units']:
                layers += [torch.nn.Linear(width, units), torch.nn.ReLU(),
                           torch.nn.Dropout(values['dnn_dropout'])]
                width = units
            layers.append(torch.nn.Linear(width, outputs))
            self.deep = torch.nn.Sequential(*layers)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            categories = x.index_select(-1, self.categorical_index)
            if self.embed:
                categories = categories @ (self.embedding * self.embedding_mask).t()
            deep_in = torch.cat([x.index_select(-1, self.numeric_index), categories], dim=-1)
            return self.wide(x.index_select(-1, self.wide_index)) + self.deep(deep_in)

    return WideDeep()


def train(values, given, job_dir):
    import torch
    del given
    torch.manual_seed(values.get('seed', 0))
    sets, preprocessor, kind, classes, uri, rows = linear_learner.prepare(values)
    mean, scale = linear_learner.standardisation(preprocessor)
    core = make_core(preprocessor, classes if kind == 'multiclass' else 1, values)
    scorer = linear_learner.make_scorer(core, mean, scale, kind)
    print('Training a wide and deep {} model (PyTorch {}, hidden units {}) on {} rows ({} '
          'features), validating on {}, testing on {}'.format(
              values['model_type'], torch.__version__, values['hidden_units'],
              len(rows['training']), len(preprocessor.feature_names()),
              len(rows['validation']), len(rows['test'])), flush=True)
    deep = [p for name, p in core.named_parameters() if not name.startswith('wide.')]
    optimizers = [linear_learner.optimizer_for(core.wide.parameters(), '', values),
                  linear_learner.optimizer_for(deep, 'dnn_', values)]
    x, y = sets['training']
    loss = linear_learner.fit(scorer, optimizers, x, y, kind, values)
    print('step {}: training loss {:.6f}'.format(values['max_steps'], loss), flush=True)
    linear_learner.save(scorer, sets, preprocessor, kind, classes, uri, rows, values, job_dir,
                        ALGORITHM)


def main(argv):
    return runner.main(argv, ALGORITHM, train)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
