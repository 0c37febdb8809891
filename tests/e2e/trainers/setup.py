"""The e2e tests' trainer package (standard library only): see trainer/__init__.py."""

from setuptools import setup

setup(name="trainer", version="0.1", packages=["trainer"])
