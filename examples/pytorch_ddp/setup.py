"""The PyTorch data-parallel example: a small CNN on scikit-learn's digits, restartable."""
from setuptools import find_packages, setup

setup(
    name="ddp_digits",
    version="0.1",
    packages=find_packages(),
    description="trainyard's PyTorch DistributedDataParallel example: a CNN on the 8x8 digits, "
                "checkpointed and resumable",
)
