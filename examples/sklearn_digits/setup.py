"""trainyard's scikit-learn example: an SVM classifying the 8x8 digits bundled with scikit-learn."""
from setuptools import find_packages, setup

setup(
    name="digits_sklearn",
    version="0.1",
    packages=find_packages(),
    description="An SVC on scikit-learn's bundled digits, tunable with AI Platform's hypertune",
    # scikit-learn comes from the system (Debian's python3-sklearn) or the runtime image, so it is
    # not listed. Tuning trials import hypertune: Google's service installs cloudml-hypertune from
    # PyPI; trainyard ships its own `hypertune` module and installs packages with --no-deps.
    install_requires=["cloudml-hypertune"],
)
