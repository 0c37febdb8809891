#!/usr/bin/env bash
# Installs Slurm 22.05 + munge from Debian (if missing) and starts a small Slurm cluster on
# loopback: one slurmctld and N emulated nodes (one slurmd -N each, own port, fake GPU GRES).
# Everything lives in a state directory; /etc/slurm is not touched. Idempotent: a cluster
# already running with the same configuration is left alone.
#
# stdout: exactly one line, `export SLURM_CONF=...` (so `eval "$(start.sh)"` works); progress
# and errors go to stderr. See README.md next to this file.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

usage() {
  cat <<EOF
usage: $0 [options]
  --state-dir DIR     config, logs, spool, pid files (default $TY_SLURM_DEFAULT_STATE_DIR)
  --nodes N           emulated nodes (default 4)
  --cpus N            CPUs per node (default 2)
  --memory MB         RealMemory per node (default 4000)
  --gpus N            fake GPUs per node, GRES gpu:<type>:N (default 2; 0 = none)
  --gpu-type NAME     GRES type of the fake GPUs (default fake)
  --node-prefix P     node names P1..PN (default n)
  --port-base P       slurmctld P..P+3, slurmdbd P+8, mariadb P+9, slurmd P+10+i (default 16817)
  --min-job-age S     seconds a finished job stays visible in squeue/scontrol (default 5)
  --sched-params S    SchedulerParameters (default $default_sched_params)
  --scheduler NAME    backfill (default) or builtin (FIFO; sbatch then refuses het jobs)
  --jobcomp NAME      filetxt (default: finished jobs readable with \`sacct -c\`) or none
  --priority NAME     basic (default: FIFO order) or multifactor (fair-share needs --accounting)
  --conf-extra FILE   lines appended to slurm.conf (e.g. PriorityWeightFairshare=...)
  --accounting        also run slurmdbd + MariaDB so sacct works (installs them if missing)
  --no-install        fail instead of installing missing packages
  --restart           restart even if the same cluster is already running
  --timeout S         how long to wait for every node to be idle (default 90)
EOF
}

default_sched_params=bf_interval=1
state_dir=$TY_SLURM_DEFAULT_STATE_DIR
sched_params=$default_sched_params
nodes=4 cpus=2 memory=4000 gpus=2 gpu_type=fake node_prefix=n port_base=16817
min_job_age=5 scheduler=backfill jobcomp=filetxt priority=basic conf_extra="" accounting=0 install=1 restart=0 timeout=90
while (($#)); do
  case $1 in
    --state-dir) state_dir=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --memory) memory=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --gpu-type) gpu_type=$2; shift 2 ;;
    --node-prefix) node_prefix=$2; shift 2 ;;
    --port-base) port_base=$2; shift 2 ;;
    --min-job-age) min_job_age=$2; shift 2 ;;
    --sched-params) sched_params=$2; shift 2 ;;
    --scheduler) scheduler=$2; shift 2 ;;
    --jobcomp) jobcomp=$2; shift 2 ;;
    --priority) priority=$2; shift 2 ;;
    --conf-extra) conf_extra=$2; shift 2 ;;
    --accounting) accounting=1; shift ;;
    --no-install) install=0; shift ;;
    --restart) restart=1; shift ;;
    --timeout) timeout=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; ty_die "unknown option: $1" ;;
  esac
done
for v in nodes cpus memory gpus port_base min_job_age timeout; do
  [[ ${!v} =~ ^[0-9]+$ ]] || ty_die "--${v//_/-} wants a number, got '${!v}'"
done
((nodes >= 1 && nodes <= 80)) || ty_die "--nodes must be 1..80"
((cpus >= 1)) || ty_die "--cpus must be >= 1"
[[ $node_prefix =~ ^[a-z][a-z0-9-]*$ ]] || ty_die "--node-prefix must match [a-z][a-z0-9-]*"
[[ $gpu_type =~ ^[A-Za-z0-9_-]+$ ]] || ty_die "--gpu-type must match [A-Za-z0-9_-]+"
[[ $scheduler == backfill || $scheduler == builtin ]] || ty_die "--scheduler: backfill or builtin"
[[ $jobcomp == filetxt || $jobcomp == none ]] || ty_die "--jobcomp: filetxt or none"
[[ $priority == basic || $priority == multifactor ]] || ty_die "--priority: basic or multifactor"
[[ -z $conf_extra || -f $conf_extra ]] || ty_die "--conf-extra: no file $conf_extra"
[[ $EUID -eq 0 ]] || ty_die "must run as root (slurmd launches jobs as their users)"
mkdir -p "$state_dir"
state_dir=$(cd "$state_dir" && pwd)
# start.sh wipes parts of the state directory: refuse one that is not empty and not ours.
marker=$state_dir/.trainyard-slurm
if [[ ! -f $marker ]]; then
  [[ -z $(ls -A "$state_dir") ]] || ty_die "$state_dir is not empty and has no $(basename "$marker"): refusing to use it"
  : >"$marker"
fi
conf=$state_dir/etc/slurm.conf
t_begin=$(ty_now)

# --- packages -------------------------------------------------------------------------------
install_packages() {
  local -a want=(slurmctld slurmd slurm-client munge) missing=()
  ((accounting)) && want+=(slurmdbd mariadb-server)
  local p
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  ((install)) || ty_die "missing packages (--no-install): ${missing[*]}"
  local t0
  t0=$(ty_now)
  ty_log "installing ${missing[*]} (apt output in $state_dir/apt.log)"
  # Without a policy-rc.d the postinst scripts start Debian's own munged (and try slurmctld and
  # slurmd, whose init scripts give up without /etc/slurm/slurm.conf); none of them is used here.
  if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${missing[@]}"; } >"$state_dir/apt.log" 2>&1; then
    tail -n 20 "$state_dir/apt.log" >&2
    ty_die "apt-get failed (see $state_dir/apt.log)"
  fi
  ty_log "installed in $(ty_elapsed "$t0") s"
}
install_packages
[[ -s /etc/munge/munge.key ]] || {
  ty_log "creating /etc/munge/munge.key"
  setpriv --reuid=munge --regid=munge --init-groups mungekey --create --keyfile=/etc/munge/munge.key
}

# --- configuration --------------------------------------------------------------------------
host=$(uname -n)
host=${host%%.*} # what `hostname -s` prints; SlurmctldHost must match it (slurm.md §12.3)
ctld_ports="$port_base-$((port_base + 3))"
dbd_port=$((port_base + 8))
db_port=$((port_base + 9))
first_node_port=$((port_base + 11))
node_range="${node_prefix}[1-$nodes]"
((nodes == 1)) && node_range="${node_prefix}1"
node_ports="[$first_node_port-$((first_node_port + nodes - 1))]"
((nodes == 1)) && node_ports=$first_node_port
gres_line="" gres_types=""
if ((gpus > 0)); then
  gres_line="Gres=gpu:$gpu_type:$gpus"
  gres_types="GresTypes=gpu"
fi
if ((accounting)); then
  accounting_lines="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStoragePass=$state_dir/munge/munge.socket
AccountingStorageTRES=gres/gpu"
else
  accounting_lines="AccountingStorageType=accounting_storage/none"
fi

render_slurm_conf() {
  cat <<EOF
# Generated by bench/peers/slurm/start.sh; rewritten on every start. Do not edit.
ClusterName=trainyard
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_ports
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state_dir/munge/munge.socket
MailProg=/bin/true
PlugStackConfig=$state_dir/etc/plugstack.conf
StateSaveLocation=$state_dir/spool/slurmctld
SlurmdSpoolDir=$state_dir/spool/slurmd-%n
SlurmctldPidFile=$state_dir/run/slurm/slurmctld.pid
SlurmdPidFile=$state_dir/run/slurm/slurmd-%n.pid
SlurmctldLogFile=$state_dir/log/slurmctld.log
SlurmdLogFile=$state_dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=30
MessageTimeout=20
KillWait=5
MinJobAge=$min_job_age
MaxJobCount=200000
MaxArraySize=100001
SchedulerType=sched/$scheduler
SchedulerParameters=$sched_params
PriorityType=priority/$priority
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=100
$accounting_lines
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/$jobcomp
JobCompLoc=$state_dir/log/jobcomp.log
$([[ -z $conf_extra ]] || cat "$conf_extra")
$gres_types
NodeName=$node_range NodeHostname=$host NodeAddr=127.0.0.1 Port=$node_ports CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=$memory $gres_line State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=high Nodes=ALL PriorityTier=10 MaxTime=INFINITE State=UP
EOF
}

render_gres_conf() {
  ((gpus > 0)) || return 0
  local files="$state_dir/dev/${gpu_type}gpu0"
  ((gpus > 1)) && files="$state_dir/dev/${gpu_type}gpu[0-$((gpus - 1))]"
  echo "NodeName=$node_range Name=gpu Type=$gpu_type File=$files"
}

render_cgroup_conf() {
  # slurmd always initialises a cgroup plugin (even with proctrack/linuxproc, task/none). On a
  # cgroup v2 host without systemd, cgroup/v2 needs IgnoreSystemd; cgroup/v1 ignores it.
  printf 'CgroupPlugin=autodetect\nIgnoreSystemd=yes\n'
}

render_slurmdbd_conf() {
  cat <<EOF
AuthType=auth/munge
AuthInfo=socket=$state_dir/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
LogFile=$state_dir/log/slurmdbd.log
PidFile=$state_dir/run/slurm/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=trainyard-test-only
StorageLoc=slurm_acct_db
EOF
}

node_names=()
for ((i = 1; i <= nodes; i++)); do node_names+=("$node_prefix$i"); done
daemons=(munged)
((accounting)) && daemons+=(mariadb slurmdbd)
daemons+=(slurmctld "${node_names[@]/#/slurmd-}")

running_count() {
  local n=0 d
  for d in "${daemons[@]}"; do ty_pid_alive "$state_dir/run/$d.pid" && n=$((n + 1)); done
  echo "$n"
}

env_line="export SLURM_CONF=$conf"
new_conf=$(render_slurm_conf; render_gres_conf; render_cgroup_conf)
old_conf=""
[[ -f $state_dir/etc/config.digest ]] && old_conf=$(<"$state_dir/etc/config.digest")
if ((!restart)) && [[ $new_conf == "$old_conf" ]] && (($(running_count) == ${#daemons[@]})) &&
  SLURM_CONF=$conf timeout 10 scontrol ping >/dev/null 2>&1; then
  ty_log "already running with this configuration ($state_dir)"
  echo "$env_line"
  exit 0
fi
if [[ -d $state_dir/run ]] && compgen -G "$state_dir/run/*.pid" >/dev/null; then
  ty_log "stopping the previous cluster in $state_dir"
  "$here/stop.sh" --state-dir "$state_dir" >&2
fi

# Ports must be free: nothing may answer on them (bash's /dev/tcp, no extra tools needed).
ports=()
for ((i = 0; i < 4; i++)); do ports+=($((port_base + i))); done
for ((i = 0; i < nodes; i++)); do ports+=($((first_node_port + i))); done
((accounting)) && ports+=("$dbd_port" "$db_port")
for p in "${ports[@]}"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    ty_die "port $p on 127.0.0.1 is in use: pick another --port-base"
  fi
done
somaxconn=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 4096)
((somaxconn >= 1024)) || ty_log "warning: net.core.somaxconn=$somaxconn; the HTC guide wants >= 1024"

# A fresh start every time: no saved jobs, no drained nodes, job ids from 1.
rm -rf "${state_dir:?}"/{spool,log,run,etc,dev}
mkdir -p "$state_dir"/{etc,log,run/slurm,dev,munge,spool/slurmctld}
for n in "${node_names[@]}"; do mkdir -p "$state_dir/spool/slurmd-$n"; done
chmod 0755 "$state_dir"
render_slurm_conf >"$conf"
render_gres_conf >"$state_dir/etc/gres.conf"
: >"$state_dir/etc/plugstack.conf"
render_cgroup_conf >"$state_dir/etc/cgroup.conf"
printf '%s\n' "$new_conf" >"$state_dir/etc/config.digest"
echo "$env_line" >"$state_dir/env.sh"

# Fake GPUs: character devices with /dev/null's numbers (slurmd wants devices, File= is
# mandatory for gres/gpu in 22.05, reference slurm.md §3.1); regular files if mknod is refused.
for ((g = 0; g < gpus; g++)); do
  f=$state_dir/dev/${gpu_type}gpu$g
  mknod "$f" c 1 3 2>/dev/null || : >"$f"
done

# --- daemons --------------------------------------------------------------------------------
# spawn NAME CMD...: start a foreground daemon in its own session, record its pid.
spawn() {
  local name=$1
  shift
  setsid "$@" >"$state_dir/log/$name.out" 2>&1 </dev/null &
  echo $! >"$state_dir/run/$name.pid"
}

fail() {
  ty_log "$1"
  ty_tail_logs "$state_dir"
  "$here/stop.sh" --state-dir "$state_dir" >&2 || true
  ty_die "$1 (logs kept in $state_dir/log)"
}

# wait_for SECONDS WHAT CMD...: poll CMD every 0.1 s.
wait_for() {
  local secs=$1 what=$2 i
  shift 2
  for ((i = 0; i < secs * 10; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "timed out after ${secs}s waiting for $what"
}

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
export SLURM_CONF=$conf

# munged with 10 threads (HTC guide "Munge configuration"), on its own socket.
chown munge:munge "$state_dir/munge"
chmod 0755 "$state_dir/munge"
spawn munged setpriv --reuid=munge --regid=munge --init-groups \
  munged --foreground --num-threads=10 --socket="$state_dir/munge/munge.socket" \
  --pid-file="$state_dir/munge/munged.pid" --log-file="$state_dir/munge/munged.log" \
  --seed-file="$state_dir/munge/munged.seed"
munge_ok() { munge -n -S "$state_dir/munge/munge.socket" | unmunge -S "$state_dir/munge/munge.socket"; }
wait_for 10 munged munge_ok

# MariaDB for slurmdbd (reference slurm.md §12.6), with its own data directory and port; the
# data directory is kept between starts, the Slurm database is recreated on every start.
start_mariadb() {
  local dir=$state_dir/mysql
  local -a client=(mariadb --no-defaults --socket="$dir/mysqld.sock" -u root)
  if [[ ! -d $dir/mysql ]]; then
    mkdir -p "$dir"
    chown mysql:mysql "$dir"
    mariadb-install-db --no-defaults --user=mysql --datadir="$dir" --skip-test-db \
      --auth-root-authentication-method=socket >"$state_dir/log/mariadb-install.out" 2>&1 ||
      fail "mariadb-install-db failed"
  fi
  spawn mariadb mariadbd --no-defaults --user=mysql --datadir="$dir" \
    --socket="$dir/mysqld.sock" --pid-file="$dir/mariadbd.pid" --port="$db_port" \
    --bind-address=127.0.0.1 --skip-name-resolve --log-error="$state_dir/log/mariadb.log"
  wait_for 60 "mariadbd on port $db_port" "${client[@]}" -e 'SELECT 1'
  "${client[@]}" -e "DROP DATABASE IF EXISTS slurm_acct_db; CREATE DATABASE slurm_acct_db;
    CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'trainyard-test-only';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" || fail "MariaDB setup failed"
}

if ((accounting)); then
  start_mariadb
  render_slurmdbd_conf >"$state_dir/etc/slurmdbd.conf"
  chmod 0600 "$state_dir/etc/slurmdbd.conf"
  spawn slurmdbd slurmdbd -D
  wait_for 30 "slurmdbd on port $dbd_port" bash -c "exec 3<>/dev/tcp/127.0.0.1/$dbd_port"
fi

t_ctld=$(ty_now)
spawn slurmctld slurmctld -D -i
wait_for 30 slurmctld scontrol ping
for n in "${node_names[@]}"; do spawn "slurmd-$n" slurmd -D -N "$n"; done

all_idle() {
  local out
  out=$(sinfo -h -N -p debug -o '%N %T') || return 1
  [[ $(grep -c ' idle$' <<<"$out") -eq $nodes ]]
}
for ((i = 0; i < timeout * 10; i++)); do
  all_idle && break
  for d in slurmctld "${node_names[@]/#/slurmd-}"; do
    ty_pid_alive "$state_dir/run/$d.pid" || fail "$d exited"
  done
  sleep 0.1
done
all_idle || {
  sinfo -N -o '%N %T %E' >&2 || true
  fail "not every node idle after ${timeout}s"
}
ty_log "$nodes nodes idle: daemons up in $(ty_elapsed "$t_ctld") s, whole start $(ty_elapsed "$t_begin") s"
ty_log "state: $state_dir (logs in log/, stop with $here/stop.sh --state-dir $state_dir)"
echo "$env_line"
