#!/usr/bin/env bash
# CTest fixture setup `slurm_cluster` (tests/slurm/CMakeLists.txt): starts the Slurm test cluster
# of bench/peers/slurm/start.sh in STATE_DIR (4 emulated nodes of 8 CPUs, 16000 MB and 2 fake
# GPUs each, as big as the machine types trainyard asks for) on ports from PORT_BASE.
#   cluster_setup.sh STATE_DIR PORT_BASE
# Without root, or when Slurm cannot be installed or started, it says why (also in
# STATE_DIR.unavailable, which the tests quote), leaves no STATE_DIR/env.sh and exits 0, so the
# tests skip; with TRAINYARD_REQUIRE_SLURM=1 (CI) it fails instead.
set -uo pipefail
state_dir=$1
port_base=$2
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
reason_file=$state_dir.unavailable

unavailable() {
  echo "slurm_cluster: $1"
  rm -f "$state_dir/env.sh"
  printf '%s\n' "$1" >"$reason_file"
  if [[ ${TRAINYARD_REQUIRE_SLURM:-} == 1 ]]; then
    echo "slurm_cluster: TRAINYARD_REQUIRE_SLURM=1, so this is a failure"
    exit 1
  fi
  echo "slurm_cluster: the tests that need Slurm will be skipped"
  exit 0
}

[[ $EUID -eq 0 ]] || unavailable "not root (slurmd must run as root to launch jobs as their users)"
rm -f "$reason_file"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! bash "$repo/bench/peers/slurm/start.sh" --state-dir "$state_dir" --port-base "$port_base" \
  --nodes 4 --cpus 8 --memory 16000 --gpus 2 >/dev/null 2>"$log"; then
  cat "$log"
  unavailable "bench/peers/slurm/start.sh failed: $(grep -v '^\s*$' "$log" | tail -n 1)"
fi
cat "$log"
[[ -f $state_dir/env.sh && -f $state_dir/etc/slurm.conf ]] ||
  unavailable "start.sh succeeded but left no env.sh or etc/slurm.conf in $state_dir"
echo "slurm_cluster: running; SLURM_CONF=$state_dir/etc/slurm.conf"
