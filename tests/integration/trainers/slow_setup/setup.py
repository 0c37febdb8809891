"""A package whose build takes a few seconds, so a test can catch its job PREPARING."""
import time

from setuptools import find_packages, setup

time.sleep(4)
setup(name="slow_setup", version="0.1", packages=find_packages())
