"""The hyperparameter-tuning probe of the e2e tests (standard library only): see
hp_probe/__init__.py."""

from setuptools import setup

setup(name="hp_probe", version="0.1", packages=["hp_probe"])
