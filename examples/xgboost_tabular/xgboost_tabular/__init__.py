"""An XGBoost classifier on scikit-learn's bundled breast-cancer data, as an AI Platform job."""
