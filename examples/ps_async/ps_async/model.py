"""Softmax regression on scikit-learn's bundled digits, and how its weights are sharded.

The weights are one matrix W of shape (65, 10): a row per pixel feature (64, scaled to [0, 1])
plus a bias row, a column per class. Parameter server k holds a contiguous block of rows
(`shard_rows`), so a worker's gradient splits the same way and each block goes to its server.
"""

import numpy as np

FEATURES = 64 + 1  # pixels and a constant 1 for the bias
CLASSES = 10
TEST_FRACTION = 0.2
SPLIT_SEED = 0


def load_data():
    """(x_train, y_train, x_test, y_test): the same stratified split on every replica.

    scikit-learn is imported here, not at the top: parameter servers never need the data and
    start faster without it.
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x = np.hstack([digits.data / 16.0, np.ones((len(digits.data), 1))])
    x_train, x_test, y_train, y_test = train_test_split(
        x, digits.target, test_size=TEST_FRACTION, random_state=SPLIT_SEED,
        stratify=digits.target)
    return x_train, y_train, x_test, y_test


def shard_rows(shards, index, rows=FEATURES):
    """(start, stop): the rows of W that parameter server `index` of `shards` holds."""
    bounds = np.linspace(0, rows, shards + 1).round().astype(int)
    return int(bounds[index]), int(bounds[index + 1])


def initial_shard(shards, index):
    """The starting value of a server's block of W: zeros (softmax regression is convex)."""
    start, stop = shard_rows(shards, index)
    return np.zeros((stop - start, CLASSES))


def gradient(weights, x, y):
    """The mean cross-entropy gradient of W on the minibatch (x, y), and the batch loss."""
    logits = x @ weights
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    loss = -float(np.mean(np.log(probs[np.arange(len(y)), y] + 1e-12)))
    probs[np.arange(len(y)), y] -= 1.0
    return x.T @ probs / len(y), loss


def accuracy(weights, x, y):
    """The fraction of (x, y) that W classifies right."""
    return float(np.mean((x @ weights).argmax(axis=1) == y))
