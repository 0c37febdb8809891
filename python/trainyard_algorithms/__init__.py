"""trainyard_algorithms: AI Platform Training's built-in algorithms, run by trainyard.

A job whose master image is a built-in algorithm's (src/algorithms/data/builtin_algorithms.json,
docs/reference/ai-platform-training.md §12) runs `python -m trainyard_algorithms.<module> ARGS
--job-dir DIR` with Debian's
interpreter and libraries instead of the image. `tabular` reads and preprocesses the CSV data the
tabular algorithms share, `runner` their arguments, outputs and tuning metric; `xgboost_train`
is the single-replica XGBoost algorithm, `xgboost_dist` the distributed one (its replicas meet
over XGBoost's collective), `linear_learner` the linear learner and
`wide_deep` wide and deep (both on PyTorch).
"""
