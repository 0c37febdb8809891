#!/bin/bash
# The standing GPU checks, for a session lent a machine with an NVIDIA GPU (CI has none): (1)
# run.sh, two one-GPU TFJobs as the job user; (2) resnet_check.sh, the seeds' ResNet-50
# benchmark bare and through trainyard; (3) container_check.sh, `nvidia-smi -L` inside a podman
# container job. Fill $TY_DEV first with tests/gpu/prepare.sh (on the machine that builds). Each
# check's whole output goes to $OUT/<check>.log; each has its own time limit so one hang does not
# take the others' time.
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-/tmp}
export PYTHONUNBUFFERED=1
nvidia-smi -L
# `standing.sh run container_check` runs only those checks.
declare -A limit=([run]=120 [resnet_check]=200 [container_check]=120)
checks=("$@"); ((${#checks[@]})) || checks=(run resnet_check container_check)
for check in "${checks[@]}"; do
  set -- "$check" "${limit[$check]}"
  echo "=== $1"
  timeout --kill-after 5 "$2" bash tests/gpu/$1.sh > "$OUT/$1.log" 2>&1
  echo "=== $1 exit $?"
  grep -E "GPUCHECK|EXCLUSIVE|RESNET50|CONTAINER_JOB_EXIT|DIRECT_PODMAN_EXIT|^job |^create |GPU 0:|Error" "$OUT/$1.log" | cut -c1-400
done
