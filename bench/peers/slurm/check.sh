#!/usr/bin/env bash
# Smoke check of a cluster started by start.sh: a trivial `sbatch --wait`, a 3-component
# heterogeneous job (one component with a fake GPU) spread over 3 nodes, a 100-task array, and
# the finished jobs' records (sacct). Prints the times; exits non-zero on any failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

ty_parse_state_dir "$@"
export SLURM_CONF=$state_dir/etc/slurm.conf
[[ -f $SLURM_CONF ]] || ty_die "no $SLURM_CONF: run start.sh first"
gpu_type=$(sed -n 's/^NodeName=.* Gres=gpu:\([^:]*\):.*/\1/p' "$SLURM_CONF")
[[ -n $gpu_type ]] || ty_die "the cluster has no GPU GRES (started with --gpus 0?)"
work=$state_dir/check
rm -rf "$work"
mkdir -p "$work"
cd "$work"
failures=0
fail() {
  ty_log "FAIL: $*"
  failures=$((failures + 1))
}
pass() { ty_log "ok: $*"; }

idle=$(sinfo -h -N -p debug -t idle -o %N | sort -u | wc -l)
((idle >= 3)) || ty_die "need >= 3 idle nodes for the het job, have $idle"

# 1. Trivial job, submit to the client seeing it finish.
t0=$(ty_now)
# shellcheck disable=SC2016 # expanded by the job, not here
if id=$(sbatch --wait --parsable -o "$work/trivial-%j.out" --wrap='echo hello from $SLURMD_NODENAME'); then
  t_trivial=$(ty_elapsed "$t0")
  if grep -q '^hello from ' "$work/trivial-$id.out"; then
    pass "trivial job $id in $t_trivial s"
  else
    fail "trivial job $id: no output"
  fi
else
  t_trivial=failed
  fail "trivial job: sbatch --wait failed"
fi

# 2. Heterogeneous job: 3 components, one task each, component 1 with a fake GPU.
cat >"$work/het.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=het-check --time=00:05:00 --output=$work/het-%j.out
#SBATCH --ntasks=1 --cpus-per-task=1 --mem=100M
#SBATCH hetjob
#SBATCH --ntasks=1 --cpus-per-task=1 --mem=100M --gres=gpu:$gpu_type:1
#SBATCH hetjob
#SBATCH --ntasks=1 --cpus-per-task=1 --mem=100M
echo "batch SLURM_JOB_NODELIST=\$SLURM_JOB_NODELIST SLURM_HET_SIZE=\$SLURM_HET_SIZE"
for g in 0 1 2; do v=SLURM_JOB_NODELIST_HET_GROUP_\$g; echo "batch group \$g nodes=\${!v}"; done
srun --het-group=0,1,2 bash -c 'echo "task procid=\$SLURM_PROCID node=\$SLURMD_NODENAME" \
  "SLURM_JOB_NODELIST=\$SLURM_JOB_NODELIST SLURM_HET_SIZE=\$SLURM_HET_SIZE" \
  "SLURM_JOB_NODELIST_HET_GROUP_1=\$SLURM_JOB_NODELIST_HET_GROUP_1" \
  "CUDA_VISIBLE_DEVICES=\${CUDA_VISIBLE_DEVICES:-}"'
EOF
t0=$(ty_now)
if id=$(sbatch --wait --parsable "$work/het.sbatch"); then
  t_het=$(ty_elapsed "$t0")
  out=$work/het-$id.out
  sed 's/^/    /' "$out" >&2
  nodes_used=$(sed -n 's/^task procid=[0-9]* node=\([^ ]*\) .*/\1/p' "$out" | sort -u | wc -l)
  if ((nodes_used == 3)); then
    pass "het job $id on 3 distinct nodes in $t_het s"
  else
    fail "het job $id: tasks on $nodes_used distinct nodes, want 3"
  fi
  if grep -q '^task procid=1 .* CUDA_VISIBLE_DEVICES=[0-9]' "$out" &&
    ! grep -q '^task procid=[02] .* CUDA_VISIBLE_DEVICES=[0-9]' "$out"; then
    pass "het job $id: CUDA_VISIBLE_DEVICES only on the GPU component"
  else
    fail "het job $id: CUDA_VISIBLE_DEVICES not as requested"
  fi
  [[ $(grep -c '^task .* SLURM_HET_SIZE=3 ' "$out") -eq 3 ]] || fail "het job $id: SLURM_HET_SIZE"
else
  t_het=failed
  fail "het job: sbatch --wait failed (output: $(cat "$work"/het-*.out 2>/dev/null))"
fi

# 3. 100-task array.
t0=$(ty_now)
# shellcheck disable=SC2016 # expanded by the job, not here
if id=$(sbatch --wait --parsable --array=0-99 -o "$work/array-%A_%a.out" --wrap='echo $SLURM_ARRAY_TASK_ID'); then
  t_array=$(ty_elapsed "$t0")
  done_count=$(cat "$work"/array-"$id"_*.out 2>/dev/null | sort -un | wc -l)
  if ((done_count == 100)); then
    pass "array $id: 100 tasks in $t_array s"
  else
    fail "array $id: $done_count of 100 tasks wrote their output"
  fi
else
  t_array=failed
  fail "array: sbatch --wait failed"
fi

# 4. Finished jobs stay queryable: sacct (with --accounting) or sacct -c (jobcomp/filetxt).
sacct_cmd=(sacct)
grep -q '^AccountingStorageType=accounting_storage/none' "$SLURM_CONF" && sacct_cmd=(sacct -c)
failed_id=$(sbatch --wait --parsable -o /dev/null --wrap='exit 3' || true)
record=""
for ((i = 0; i < 50; i++)); do
  record=$("${sacct_cmd[@]}" -n -P -X -j "$failed_id" -o JobID,State,ExitCode 2>&1 || true)
  [[ $record == "$failed_id|FAILED|3:0" ]] && break
  sleep 0.2
done
if [[ $record == "$failed_id|FAILED|3:0" ]]; then
  pass "${sacct_cmd[*]}: $record"
else
  fail "${sacct_cmd[*]} -j $failed_id: got '$record', want '$failed_id|FAILED|3:0'"
fi

printf 'trivial_sbatch_wait_s=%s het3_sbatch_wait_s=%s array100_sbatch_wait_s=%s\n' \
  "$t_trivial" "$t_het" "$t_array"
((failures == 0)) || ty_die "$failures check(s) failed"
ty_log "all checks passed"
