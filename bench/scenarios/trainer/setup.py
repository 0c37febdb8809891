"""The benchmark trainer package (bench/scenarios): trivial, distributed and log-heavy tasks."""
from setuptools import find_packages, setup

setup(
    name="benchtrainer",
    version="0.1",
    packages=find_packages(),
    description="trainyard's benchmark trainer: prints a line (and meets its cluster), or prints many",
)
