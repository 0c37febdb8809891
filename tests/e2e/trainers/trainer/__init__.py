"""Light trainers for the end-to-end tests (gcloud_training_test.py), standard library only.

Every replica writes what it saw (argv, TF_CONFIG, the trainyard variables) as JSON into the job
directory, `reports/<type>-<index>.json`, so the test reads it back with `gcloud storage cat`.

- `trainer.task`: checks its flags and TF_CONFIG; the primary waits for the report of every other
  cluster member, then writes `model/epoch-<n>.txt` for each of `--epochs` and exits 0; workers
  exit 0 after their report; parameter servers wait until stopped (SIGTERM writes
  `reports/ps-<i>.stopped`).
- `trainer.fail`: raises after its report.
- `trainer.hold`: waits until it is stopped.
"""
