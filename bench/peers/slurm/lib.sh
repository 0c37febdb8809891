# shellcheck shell=bash
# Helpers shared by start.sh, stop.sh and check.sh. Sourced, never run.

# shellcheck disable=SC2034 # used by the scripts that source this file
TY_SLURM_DEFAULT_STATE_DIR=/var/tmp/trainyard-slurm

ty_log() { printf '[slurm] %s\n' "$*" >&2; }
ty_die() {
  printf '[slurm] error: %s\n' "$*" >&2
  exit 1
}

# Seconds since the epoch with millisecond precision.
ty_now() { date +%s.%N; }
ty_elapsed() { awk -v a="$1" -v b="$(ty_now)" 'BEGIN { printf "%.2f", b - a }'; }

# ty_alive PID: true if PID is a live process. A zombie counts as dead: PID 1 may reap
# the orphaned daemons late, and kill -0 succeeds on a zombie.
ty_alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}

# ty_pid_alive PIDFILE: true if the file names a live process.
ty_pid_alive() {
  local pid
  [[ -s $1 ]] || return 1
  pid=$(<"$1")
  [[ $pid =~ ^[0-9]+$ ]] && ty_alive "$pid"
}

# ty_stop_pidfile PIDFILE [TIMEOUT_S]: SIGTERM, wait, then SIGKILL; removes the file.
ty_stop_pidfile() {
  local file=$1 timeout=${2:-15} pid i
  if ty_pid_alive "$file"; then
    pid=$(<"$file")
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < timeout * 20; i++)); do
      ty_alive "$pid" || break
      sleep 0.05
    done
    if ty_alive "$pid"; then
      ty_log "pid $pid ($(basename "$file")) ignored SIGTERM for ${timeout}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$file"
}

# ty_tail_logs DIR: the end of every daemon log, for error messages.
ty_tail_logs() {
  local f
  for f in "$1"/log/*.log "$1"/log/*.out "$1"/munge/munged.log; do
    [[ -s $f ]] || continue
    printf '\n==> %s <==\n' "$f" >&2
    tail -n 15 "$f" >&2
  done
}

# Sets state_dir from the only option check.sh and stop.sh take, --state-dir DIR.
ty_parse_state_dir() {
  state_dir=$TY_SLURM_DEFAULT_STATE_DIR
  while (($#)); do
    case $1 in
      --state-dir) state_dir=$2; shift 2 ;;
      -h | --help) echo "usage: $0 [--state-dir DIR]"; exit 0 ;;
      *) ty_die "unknown option: $1" ;;
    esac
  done
}
