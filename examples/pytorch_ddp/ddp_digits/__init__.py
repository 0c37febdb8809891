"""A small CNN on scikit-learn's 8x8 digits, trained with DistributedDataParallel."""
