#!/usr/bin/env bash
# CTest fixture cleanup `slurm_cluster` (tests/slurm/CMakeLists.txt): stops the Slurm test cluster
# of STATE_DIR (only that one: bench/peers/slurm/stop.sh stops the daemons by the pids start.sh
# recorded there) and removes STATE_DIR/env.sh, so that the tests skip until the next setup.
# Runs after the tests that need the cluster, whether they passed or not.
#   cluster_cleanup.sh STATE_DIR
set -uo pipefail
state_dir=$1
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

rm -f "$state_dir/env.sh"
if [[ ! -d $state_dir/run ]]; then
  echo "slurm_cluster: nothing was started in $state_dir"
  exit 0
fi
if [[ $EUID -ne 0 ]]; then
  echo "slurm_cluster: not root, nothing to stop"
  exit 0
fi
bash "$repo/bench/peers/slurm/stop.sh" --state-dir "$state_dir"
