"""The linear example trainer: synthetic logistic regression with numpy, data-parallel."""
from setuptools import find_packages, setup

setup(
    name="trainer",
    version="0.1",
    packages=find_packages(),
    description="trainyard's linear example: logistic regression, one data shard per replica",
)
