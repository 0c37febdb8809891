#!/usr/bin/env bash
# Burst of trivial jobs against a cluster started by start.sh: N jobs submitted as fast as one
# client can, either as one array (`sbatch --array=0-(N-1)`) or as N separate `sbatch` calls,
# then squeue polled until none of them is pending/running/completing.
# stdout: one line of key=value figures (seconds); the jobs' final states are checked.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

state_dir=$TY_SLURM_DEFAULT_STATE_DIR mode=array count=1000 poll=0.1 parallel=1
while (($#)); do
  case $1 in
    --state-dir) state_dir=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --poll) poll=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    -h | --help)
      echo "usage: $0 [--state-dir DIR] [--mode array|separate] [--count N] [--poll S] [--parallel P]"
      echo "  --parallel P: separate mode only, P concurrent submitting shells (default 1)"
      exit 0
      ;;
    *) ty_die "unknown option: $1" ;;
  esac
done
[[ $mode == array || $mode == separate ]] || ty_die "--mode: array or separate"
[[ $count =~ ^[0-9]+$ && $count -ge 1 ]] || ty_die "--count wants a positive number"
[[ $parallel =~ ^[0-9]+$ && $parallel -ge 1 ]] || ty_die "--parallel wants a positive number"
export SLURM_CONF=$state_dir/etc/slurm.conf
[[ -f $SLURM_CONF ]] || ty_die "no $SLURM_CONF: run start.sh first"
name=burst-$$-$RANDOM
cd "$state_dir"

# submit_range FIRST LAST: separate sbatch calls for jobs FIRST..LAST.
submit_range() {
  local i
  for ((i = $1; i <= $2; i++)); do
    sbatch --parsable -J "$name" -o /dev/null --wrap=true >/dev/null
  done
}

t0=$(ty_now)
if [[ $mode == array ]]; then
  sbatch --parsable -J "$name" -o /dev/null --array="0-$((count - 1))" --wrap=true >/dev/null
else
  per=$(((count + parallel - 1) / parallel))
  pids=()
  for ((p = 0; p < parallel; p++)); do
    first=$((p * per)) last=$(((p + 1) * per - 1))
    ((last < count)) || last=$((count - 1))
    ((first <= last)) || continue
    submit_range "$first" "$last" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || ty_die "a submitting shell failed"; done
fi
t_submitted=$(ty_elapsed "$t0")
while [[ -n $(squeue -h -n "$name" -o %i | head -n 1) ]]; do sleep "$poll"; done
t_done=$(ty_elapsed "$t0")

# Final states: jobcomp/filetxt lines (or sacct with accounting). Array tasks appear once each.
completed=""
if grep -q '^JobCompType=jobcomp/filetxt' "$SLURM_CONF"; then
  completed=$(grep -c "Name=$name JobState=COMPLETED " "$state_dir/log/jobcomp.log" || true)
elif ! grep -q '^AccountingStorageType=accounting_storage/none' "$SLURM_CONF"; then
  completed=$(sacct -n -X -P --name="$name" -o State | grep -c '^COMPLETED$' || true)
fi
rate=$(awk -v n="$count" -v t="$t_done" 'BEGIN { printf "%.1f", n / t }')
printf 'mode=%s count=%d parallel=%d submit_s=%s all_terminal_s=%s jobs_per_s=%s completed=%s\n' \
  "$mode" "$count" "$parallel" "$t_submitted" "$t_done" "$rate" "${completed:-unknown}"
[[ -z $completed || $completed -eq $count ]] || ty_die "only $completed of $count jobs COMPLETED"
