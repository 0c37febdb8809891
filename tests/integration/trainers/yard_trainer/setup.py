from setuptools import setup

setup(name="yard-trainer", version="0.1", packages=["trainer"],
      description="Trainers for trainyard's execution tests")
