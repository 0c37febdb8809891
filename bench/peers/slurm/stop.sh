#!/usr/bin/env bash
# Stops the cluster start.sh started in a state directory: cancels its jobs, then stops each
# daemon by the pid start.sh recorded (and whatever is left in that daemon's session, e.g. a
# slurmstepd). Leaves packages, config and logs in place. Safe to run when nothing is running.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

ty_parse_state_dir "$@"
[[ -d $state_dir/run ]] || { ty_log "nothing to stop in $state_dir"; exit 0; }
state_dir=$(cd "$state_dir" && pwd)
run=$state_dir/run
export SLURM_CONF=$state_dir/etc/slurm.conf

# Pids of the other live processes in the session led by pid $1 (start.sh runs each daemon
# under setsid; a slurmstepd stays in its slurmd's session). Reads /proc: no procps needed.
session_pids() {
  local f stat pid
  local -a fields
  for f in /proc/[0-9]*/stat; do
    { read -r stat <"$f"; } 2>/dev/null || continue # the process may be gone by now
    read -r -a fields <<<"${stat##*) }"          # state ppid pgrp session ...
    ((${#fields[@]} > 3)) || continue
    pid=${f#/proc/}
    pid=${pid%/stat}
    [[ ${fields[3]} == "$1" && $pid != "$1" && ${fields[0]} != Z ]] && echo "$pid"
  done
  return 0
}

# stop_daemon NAME: TERM the daemon, then TERM/KILL what is left in its session.
stop_daemon() {
  local file=$run/$1.pid sid left
  [[ -f $file ]] || return 0
  sid=$(<"$file")
  ty_stop_pidfile "$file" 15
  [[ $sid =~ ^[0-9]+$ ]] || return 0
  left=$(session_pids "$sid")
  [[ -n $left ]] || return 0
  # shellcheck disable=SC2086 # word splitting intended: a list of pids
  kill -TERM $left 2>/dev/null || true
  sleep 1
  left=$(session_pids "$sid")
  # shellcheck disable=SC2086
  [[ -z $left ]] || kill -KILL $left 2>/dev/null || true
}

# Job steps a dead slurmd left behind (reference slurm.md §6, "orphan hazard"): a slurmstepd
# calls setsid, so it is not in its slurmd's session, but it keeps the slurmd's log open.
# Prints those processes and all their descendants.
orphan_step_trees() {
  local f stat pid fd
  local -a fields roots=() queue=()
  local -A children=()
  for f in /proc/[0-9]*/stat; do
    { read -r stat <"$f"; } 2>/dev/null || continue
    read -r -a fields <<<"${stat##*) }"
    ((${#fields[@]} > 3)) || continue
    pid=${f#/proc/}
    pid=${pid%/stat}
    children[${fields[1]}]+=" $pid"
    for fd in /proc/"$pid"/fd/*; do
      [[ $(readlink "$fd" 2>/dev/null) == "$state_dir"/log/slurmd-*.log ]] && { roots+=("$pid"); break; }
    done
  done
  queue=("${roots[@]}")
  while ((${#queue[@]})); do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    echo "$pid"
    # shellcheck disable=SC2206 # a space-separated list of pids
    queue+=(${children[$pid]:-})
  done
}

t0=$(ty_now)
if ty_pid_alive "$run/slurmctld.pid"; then
  mapfile -t jobs < <(timeout 10 squeue -h -o %A 2>/dev/null | sort -u || true)
  if ((${#jobs[@]})); then
    ty_log "cancelling ${#jobs[@]} job(s)"
    timeout 10 scancel "${jobs[@]}" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      [[ -z $(timeout 5 squeue -h -t running,completing -o %A 2>/dev/null || true) ]] && break
      sleep 0.1
    done
  fi
fi
for f in "$run"/slurmd-*.pid; do
  [[ -e $f ]] || continue
  name=$(basename "$f" .pid)
  stop_daemon "$name"
done
mapfile -t orphans < <(orphan_step_trees)
if ((${#orphans[@]})); then
  ty_log "killing ${#orphans[@]} leftover job step process(es): ${orphans[*]}"
  kill -KILL "${orphans[@]}" 2>/dev/null || true
fi
for name in slurmctld slurmdbd mariadb munged; do stop_daemon "$name"; done
ty_log "stopped in $(ty_elapsed "$t0") s ($state_dir)"
