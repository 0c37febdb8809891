"""A trainer for the hyperparameter-tuning e2e tests (gcloud_tuning_test.py), standard library and
trainyard's `hypertune` module only.

`python -m hp_probe.task [probe flags] --<param>=<value>… --job-dir DIR` treats every `--name=value`
flag it does not know as a trial's hyperparameter. It writes `<job-dir>/<trial>/seen.json` first
(its pid, argv, hyperparameters, the tuning variables, TF_CONFIG's task and where `hypertune` was
imported from), then reports through `hypertune` the metric `--tag` (default `score`): the sum of
the numeric hyperparameters plus 0.5 when a categorical one is `y`, plus 1/step at each of
`--steps` reports `--interval` seconds apart. Probe flags:

- `--fail-on NAME=VALUE`: exit 1 (a message on stderr) when hyperparameter NAME is VALUE;
- `--hold`: after reporting, wait until stopped;
- SIGTERM writes `<job-dir>/<trial>/sigterm` and exits 0; a run that reports all its steps writes
  `<job-dir>/<trial>/done`.
"""
