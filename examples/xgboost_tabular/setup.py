"""trainyard's XGBoost example: boosted trees on scikit-learn's bundled breast-cancer data."""
from setuptools import find_packages, setup

setup(
    name="xgboost_tabular",
    version="0.1",
    packages=find_packages(),
    description="An XGBoost classifier on tabular data, tunable with AI Platform's hypertune",
    # xgboost and scikit-learn come from the system (Debian's python3-xgboost, python3-sklearn) or
    # the runtime image, so they are not listed. Tuning trials import hypertune: Google's service
    # installs cloudml-hypertune from PyPI; trainyard ships its own `hypertune` module and installs
    # packages with --no-deps.
    install_requires=["cloudml-hypertune"],
)
