"""The ps_async example: asynchronous SGD through parameter servers, numpy and the stdlib only."""
from setuptools import find_packages, setup

setup(
    name="ps_async",
    version="0.1",
    packages=find_packages(),
    description=("trainyard's parameter-server example: workers push gradients to sharded "
                 "parameter servers over sockets; evaluators follow the checkpoints"),
)
