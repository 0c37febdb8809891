"""Asynchronous parameter-server training of softmax regression on scikit-learn's digits.

Run it as `python3 -m ps_async.task --job-dir DIR` on every replica of a trainyard (or AI
Platform) CUSTOM job; TF_CONFIG says which part each replica plays. See README.md.
"""
