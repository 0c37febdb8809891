"""An SVC on scikit-learn's bundled handwritten digits, submitted as an AI Platform training job."""
