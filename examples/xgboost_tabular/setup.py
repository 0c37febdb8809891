"""trainyard's XGBoost example: boosted trees on scikit-learn's bundled breast-cancer data."""
from setuptools import find_packages, setup

setup(
    name="xgboost_tabular",
    version="0.1",
    packages=find_packages(),
    description="An XGBoost classifier on tabular data, tunable with AI Platform's hypertune",
    # xgboost and scikit-learn come from the system (Debian's python3-xgboost, python3-sklearn) or
    # the runtime image: trainyard installs packages with --no-deps.
)
