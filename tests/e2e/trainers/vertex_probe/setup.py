from setuptools import setup

setup(name="vertex_probe", version="0.1", packages=["vertex_probe"])
