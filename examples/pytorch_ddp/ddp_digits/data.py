"""scikit-learn's bundled 8x8 digits (1,797 images, nothing downloaded) as tensors."""

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch.utils.data import TensorDataset

TEST_FRACTION = 0.2
SPLIT_SEED = 0


def digits_datasets():
    """(train, test) TensorDatasets of (1x8x8 float image in [0, 1], label); the split is fixed,
    so every replica, and every restart, sees the same one."""
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    x_train, x_test, y_train, y_test = train_test_split(
        images, digits.target, test_size=TEST_FRACTION, random_state=SPLIT_SEED,
        stratify=digits.target)
    return (TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train).long()),
            TensorDataset(torch.from_numpy(x_test), torch.from_numpy(y_test).long()))
