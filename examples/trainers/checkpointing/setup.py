"""The checkpointing example trainer: a step counter that survives preemption (issue #34)."""
from setuptools import find_packages, setup

setup(
    name="trainer",
    version="0.1",
    packages=find_packages(),
    description="trainyard's checkpointing example: resumes from its last checkpoint",
)
