#!/usr/bin/env bash
# The trainyard HTTP API benchmark (see bench/README.md). Builds nothing: give it a release binary.
#
#   bench/api/run.sh [--quick] [--duration SECONDS] [--jobs N] [TRAINYARD]
#
# TRAINYARD defaults to build/release/trainyard (cmake --preset release && cmake --build --preset
# release --target trainyard). Starts `trainyard serve` on a free loopback port with a temporary
# data directory, preloads N jobs (default 100,000; --quick: 10,000) with concurrent creates,
# then runs wrk for a fixed time each (default 10 s; --quick: 3 s): creations/s, get at 1, 16 and
# 64 connections, list (pageSize=100), and GET /healthz at the same connections as the floor.
# Writes bench/api/results.md and prints it. Never asserts a time; exits non-zero only when it
# cannot measure (no binary, the server does not start, the preload does not finish).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
lua="$here/api.lua"
out="$here/results.md"

duration=10
jobs=100000
mode=full
binary=""
while (($#)); do
  case "$1" in
    --quick) duration=3 jobs=10000 mode=quick ;;
    --duration) duration=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) binary=$1 ;;
  esac
  shift
done
binary=${binary:-$repo/build/release/trainyard}
if [[ ! -x $binary ]]; then
  echo "run.sh: no trainyard binary at $binary" >&2
  echo "  (cmake --preset release && cmake --build --preset release --target trainyard)" >&2
  exit 1
fi
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")

# --- tools ---------------------------------------------------------------------------------
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v curl >/dev/null || need+=(curl)
if ((${#need[@]})); then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  echo "run.sh: installing ${need[*]}" >&2
  $sudo apt-get install -y -qq "${need[@]}" >&2
fi

# --- the server ----------------------------------------------------------------------------
tmp=$(mktemp -d /tmp/trainyard-bench-api.XXXXXX)
server_pid=""
loader_pid=""
cleanup() {
  if [[ -n $loader_pid ]] && kill -0 "$loader_pid" 2>/dev/null; then
    kill -INT "$loader_pid" 2>/dev/null || true
    wait "$loader_pid" 2>/dev/null || true
  fi
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
env -u TRAINYARD_HOME "$binary" serve --listen 127.0.0.1:0 --data-dir "$tmp/data" \
  2>"$tmp/server.log" &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's|^trainyard: serving on \(http://[^ ]*\)/ .*|\1|p' "$tmp/server.log")
  [[ -n $url ]] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $url ]]; then
  echo "run.sh: trainyard serve did not start:" >&2
  cat "$tmp/server.log" >&2
  exit 1
fi
echo "run.sh: server pid $server_pid at $url; $mode run, ${duration}s per measurement" >&2

stored_jobs() {
  curl -sf "$url/metrics" | awk '/^trainyard_jobs\{/ {n += $2} END {print n + 0}'
}

# --- preload -------------------------------------------------------------------------------
# Two wrk threads of 16 connections create ids pre_<0|1>_<n>; each thread stops once `quota` of
# its creates were answered 200 (api.lua), and wrk is interrupted once the store holds at least
# 2 x quota jobs and stopped growing (both threads done).
quota=$(((jobs + 1) / 2))
jobs=$((quota * 2))
echo "run.sh: preloading $jobs jobs" >&2
preload_start=$(date +%s.%N)
wrk -t2 -c16 -d3600s -s "$lua" "$url" -- preload pre "$quota" >"$tmp/preload.txt" 2>&1 &
loader_pid=$!
deadline=$((SECONDS + 900))
count=0
while :; do
  sleep 1
  previous=$count
  count=$(stored_jobs)
  ((count >= jobs && count == previous)) && break
  if ((SECONDS > deadline)) || ! kill -0 "$loader_pid" 2>/dev/null; then
    echo "run.sh: preload stopped at $count of $jobs jobs:" >&2
    cat "$tmp/preload.txt" >&2
    exit 1
  fi
done
preload_end=$(date +%s.%N)
kill -INT "$loader_pid"
wait "$loader_pid" || true
loader_pid=""
preload_rate=$(awk -v n="$count" -v a="$preload_start" -v b="$preload_end" \
  'BEGIN {printf "%.0f", n / (b - a)}')
echo "run.sh: preloaded $count jobs at about $preload_rate/s" >&2

# --- measurements --------------------------------------------------------------------------
# measure NAME CONNECTIONS MODE [ARGS...]: runs wrk, leaves the fields of api.lua's BENCH line
# in B_<key>, the non-2xx count in B_non2xx and the requests/s in B_rate.
B_requests=0 B_duration_us=1 B_p50_us=0 B_p99_us=0 B_ok=0 B_other=0 B_socket_errors=0
measure() {
  local name=$1 connections=$2
  shift 2
  local threads=2
  ((connections < 2)) && threads=1
  wrk -t"$threads" -c"$connections" -d"${duration}s" --latency -s "$lua" "$url" -- "$@" \
    >"$tmp/$name.txt" 2>&1
  local line
  line=$(grep '^BENCH ' "$tmp/$name.txt") || {
    cat "$tmp/$name.txt" >&2
    return 1
  }
  for kv in ${line#BENCH }; do
    printf -v "B_${kv%%=*}" '%s' "${kv#*=}"
  done
  B_non2xx=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$tmp/$name.txt")
  B_non2xx=${B_non2xx:-0}
  B_rate=$(awk -v n="$B_requests" -v us="$B_duration_us" 'BEGIN {printf "%.0f", n / (us / 1e6)}')
  echo "run.sh: $name: $B_rate req/s, p50 $B_p50_us us, p99 $B_p99_us us, non-2xx $B_non2xx" >&2
}
ms() { awk -v us="$1" 'BEGIN {printf "%.2f", us / 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; }
row() { # MEASUREMENT CONNECTIONS REQ/S P50_US P99_US NOTES
  rows+=("| $1 | $2 | $3 | $(ms "$4") | $(ms "$5") | $6 |")
}

# CPU time, to tell how much of the machine something else used while measuring: all busy time
# (user, nice, system, irq, softirq, steal) from /proc/stat, minus the server's and this script's
# children's (wrk, curl), in clock ticks.
tick=$(getconf CLK_TCK)
machine_busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
server_cpu() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }
# Sets children to the CPU time of this shell's finished children (`times` must run in this shell,
# not in a $(...) subshell, which has children of its own).
children_cpu() {
  times >"$tmp/times"
  children=$(tail -1 "$tmp/times" | awk -v hz="$tick" '{
    t = 0
    for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] }
    printf "%.0f", t * hz }')
}
cpu_start=$(date +%s.%N) busy_start=$(machine_busy) server_start=$(server_cpu)
children_cpu
children_start=$children

rows=()
# Creations: only 200 answers count; a refused or failed create shows in the last column.
measure create 16 create c
create_rate=$(awk -v n="$B_ok" -v us="$B_duration_us" 'BEGIN {printf "%.0f", n / (us / 1e6)}')
row "create (POST, unique ids)" 16 "**$create_rate** (200s only)" "$B_p50_us" "$B_p99_us" \
  "$B_other non-200, $B_socket_errors socket errors"

for c in 1 16 64; do
  measure "healthz_$c" "$c" healthz
  h_rate=$B_rate h_p50=$B_p50_us h_p99=$B_p99_us h_bad=$B_non2xx
  measure "get_$c" "$c" get pre 2 "$quota"
  floor="of /healthz: $(ratio "$B_rate" "$h_rate")x req/s, $(ratio "$B_p50_us" "$h_p50")x p50"
  floor+=", $(ratio "$B_p99_us" "$h_p99")x p99"
  row "get (random preloaded job)" "$c" "$B_rate" "$B_p50_us" "$B_p99_us" "$B_non2xx non-2xx; $floor"
  row "GET /healthz (floor)" "$c" "$h_rate" "$h_p50" "$h_p99" "$h_bad non-2xx"
done
for c in 1 16; do
  measure "list_$c" "$c" list
  row "list (first page, pageSize=100)" "$c" "$B_rate" "$B_p50_us" "$B_p99_us" "$B_non2xx non-2xx"
done

cpu_end=$(date +%s.%N) busy_end=$(machine_busy) server_end=$(server_cpu)
children_cpu
children_end=$children
final_jobs=$(stored_jobs)
others=$(awk -v t0="$cpu_start" -v t1="$cpu_end" -v b0="$busy_start" -v b1="$busy_end" \
  -v s0="$server_start" -v s1="$server_end" -v c0="$children_start" -v c1="$children_end" \
  -v hz="$tick" -v n="$(nproc)" 'BEGIN {
    other = ((b1 - b0) - (s1 - s0) - (c1 - c0)) / hz; if (other < 0) other = 0
    capacity = (t1 - t0) * n
    printf "%.0f%% of the machine (%.0f of %.0f CPU-seconds); server %.0f, wrk %.0f", \
      100 * other / capacity, other, capacity, (s1 - s0) / hz, (c1 - c0) / hz }')
peak_rss_kb=$(awk '/^VmHWM:/ {print $2}' "/proc/$server_pid/status")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report --------------------------------------------------------------------------------
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git -C "$repo" status --porcelain -- src CMakeLists.txt 2>/dev/null) ]]; then
  commit="$commit (with uncommitted changes under src/)"
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$(dirname "$binary")/CMakeCache.txt" \
  2>/dev/null || true)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem_gib=$(awk '/^MemTotal:/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)

{
  echo "# trainyard API benchmark ($mode run)"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| date | $(date -u +%Y-%m-%dT%H:%M:%SZ) |"
  echo "| machine | $(nproc) CPUs ($cpu), $mem_gib GiB memory, $(uname -sr) |"
  echo "| commit | $commit |"
  echo "| binary | ${binary#"$repo"/} (${build_type:-build type unknown}) |"
  echo "| load average (1, 5, 15 min) | before: $load_before; after: $load_after |"
  echo "| CPU used by other processes while measuring | $others |"
  echo "| server | \`trainyard serve\`, default threads, a fresh SQLite store in /tmp |"
  echo "| load tool | $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2), 1 thread for 1" \
    "connection, 2 threads otherwise, ${duration} s per row |"
  echo "| store | $count jobs preloaded (about $preload_rate/s at 16 connections);" \
    "$final_jobs at the end |"
  echo "| server peak RSS (VmHWM) | $((peak_rss_kb / 1024)) MiB ($peak_rss_kb kB) |"
  echo
  echo "| measurement | connections | requests/s | p50 ms | p99 ms | notes |"
  echo "|---|---:|---:|---:|---:|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Aims (issue #19): ≥ 10,000 creations/s, get p99 ≤ 2 ms at 64 connections, list of 100"
  echo "p50 ≤ 5 ms at 16 connections, with 100,000 jobs stored, on 2 cores."
  echo "wrk and the server share the machine's CPUs; see bench/README.md for how to read this."
} >"$out"
cat "$out"
