"""The network: two 3x3 convolutions, a max-pool and two dense layers for 8x8 images."""

from torch import nn


def digits_cnn(classes=10):
    """A small CNN for 1x8x8 inputs; about 38k parameters."""
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 32, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 4 * 4, 64),
        nn.ReLU(),
        nn.Linear(64, classes),
    )
