#!/usr/bin/env bash
# The tuning benchmark (see bench/README.md, "tuning/"): builds bench_tuning (Release, under
# nice, -j1), runs it, plots the curves and records the figures in bench/RESULTS.md.
#
#   bench/tuning/run.sh [--quick] [--seeds N] [--no-peers | --peer-csv PATH] [--build-dir DIR]
#                       [--no-record] [-- BENCH_TUNING_FLAGS...]
#
# Full: 20 seeds x 100 trials per test function and algorithm (gp, random, gp-batch4, and Optuna's
# samplers through optuna_peer.py, installing Debian's python3-optuna when missing; --no-peers
# leaves them out, --peer-csv takes their curves from an earlier optuna_peer.py run with the same
# seeds and trials, as the report then says); --quick: 3 seeds x 30 trials; --seeds N: N seeds. Flags after `--` go to
# bench_tuning (e.g. -- --functions branin; a --functions list reaches the peers too). Writes
# bench/tuning/curves.csv (the raw curves; not committed), bench/tuning/results.md (the summary
# with the machine and commit) and bench/tuning/regret.png, and replaces the generated "Tuning"
# block of bench/RESULTS.md (appends it the first time; the other sections and any notes after
# the block are kept) unless --no-record. DIR defaults to build/bench-tuning. Never asserts a
# figure; exits non-zero only when it cannot measure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build_dir=$repo/build/bench-tuning
mode=full
seeds=20
trials=100
record=1
peers=1
peer_csv=""
extra=()
while (($#)); do
  case "$1" in
    --quick) mode=quick seeds=3 trials=30 ;;
    --build-dir) build_dir=$2; shift ;;
    --no-record) record=0 ;;
    --no-peers) peers=0 ;;
    --peer-csv) peer_csv=$(realpath "$2"); shift ;;
    --seeds) seeds=$2; shift ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$build_dir"
build_dir=$(cd "$build_dir" && pwd)

# --- build ---------------------------------------------------------------------------------
generator=()
[[ -f $build_dir/CMakeCache.txt ]] || generator=(-G Ninja)
nice cmake -S "$repo" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DTY_BUILD_BENCH=ON >/dev/null
nice cmake --build "$build_dir" --target bench_tuning -j1
binary=$build_dir/bench/tuning/bench_tuning

# --- run -----------------------------------------------------------------------------------
tmp=$(mktemp -d /tmp/trainyard-bench-tuning.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)
peer_flags=()
if [[ -n $peer_csv ]]; then
  cp "$peer_csv" "$tmp/peers.csv"
  peer_flags=(--peer-csv "$tmp/peers.csv")
elif ((peers)); then
  if ! /usr/bin/python3 -c 'import optuna, cmaes, scipy' 2>/dev/null; then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo=sudo
    echo "run.sh: installing python3-optuna" >&2
    $sudo apt-get install -y -qq python3-optuna python3-cmaes python3-scipy >&2
  fi
  functions=()
  for ((i = 0; i < ${#extra[@]}; i++)); do
    [[ ${extra[i]} == --functions ]] && functions=(--functions "${extra[i + 1]}")
  done
  nice /usr/bin/python3 "$here/optuna_peer.py" --bench "$binary" --seeds "$seeds" \
    --trials "$trials" --csv "$tmp/peers.csv" "${functions[@]}"
  peer_flags=(--peer-csv "$tmp/peers.csv")
fi
nice "$binary" --seeds "$seeds" --trials "$trials" --csv "$here/curves.csv" \
  --summary "$tmp/summary.md" "${peer_flags[@]}" "${extra[@]}"
((peers)) && tail -n +2 "$tmp/peers.csv" >>"$here/curves.csv"
took=$(($(date +%s) - started))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- plot ----------------------------------------------------------------------------------
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  echo "run.sh: installing python3-matplotlib" >&2
  $sudo apt-get install -y -qq python3-matplotlib >&2
fi
nice /usr/bin/python3 "$here/plot.py" "$here/curves.csv" "$here/regret.png"

# --- report --------------------------------------------------------------------------------
cpus=$(nproc)
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
memory=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$repo" status --porcelain -- src/tuning bench/tuning 2>/dev/null \
  | grep -v -e 'curves.csv' -e 'regret.png' -e 'results.md' || true)
tree_note="with a clean \`src/tuning/\` and \`bench/tuning/\`"
[[ -n $dirty ]] && tree_note="with uncommitted changes in \`src/tuning/\` or \`bench/tuning/\`"
peer_note="not run (\`--no-peers\`)"
[[ -n $peer_csv ]] && peer_note="Optuna $(/usr/bin/python3 -c 'import optuna; print(optuna.__version__)') (Debian's python3-optuna) through \`optuna_peer.py\`, its curves from an earlier run of the same seeds and trials (\`--peer-csv\`)"
[[ -z $peer_csv ]] && ((peers)) && peer_note="Optuna $(/usr/bin/python3 -c 'import optuna; print(optuna.__version__)') (Debian's python3-optuna) through \`optuna_peer.py\`, in the same run"
if [[ $mode == quick ]]; then
  mode_note="quick ($seeds seeds × $trials trials per function and algorithm; \`run.sh --quick\`)"
else
  mode_note="full ($seeds seeds × $trials trials per function and algorithm)"
  ((seeds != 20)) && mode_note="$seeds seeds × $trials trials per function and algorithm (\`--seeds $seeds\`; full is 20)"
fi
((${#extra[@]})) && mode_note+=", with \`${extra[*]}\`"
{
  echo "## Tuning (\`bench/tuning/run.sh\`), $(date -u +%Y-%m-%d)"
  echo
  echo "**Mode**: $mode_note. **Machine**: $cpus CPUs ($cpu_model), $memory memory, Linux" \
    "$(uname -r); load average (1, 5, 15 min) $load_before before and $load_after after; the" \
    "run took ${took} s under \`nice\`, on one thread. **Peers**: $peer_note. **Commit**: \`$commit\`, $tree_note." \
    "**Binary**: \`${binary#"$repo"/}\` (Release)."
  echo
  cat "$tmp/summary.md"
  echo
  echo "![Median log10 regret per trial with quartile bands](regret.png)"
  echo
  echo "The raw curves of this run are in \`bench/tuning/curves.csv\` (not committed; \`plot.py\`" \
    "redraws the figure from it)."
} >"$here/results.md"
cat "$here/results.md"

if ((record)); then
  # The block between the markers is the script's; everything else in RESULTS.md is kept.
  sed 's|](regret.png)|](tuning/regret.png)|' "$here/results.md" >"$tmp/section.md"
  /usr/bin/python3 - "$repo/bench/RESULTS.md" "$tmp/section.md" <<'PY'
import sys

path, section_path = sys.argv[1], sys.argv[2]
begin, end = "<!-- tuning: begin (bench/tuning/run.sh writes this block) -->", "<!-- tuning: end -->"
block = f"{begin}\n{open(section_path).read().rstrip()}\n{end}\n"
text = open(path).read()
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    tail = rest.split(end, 1)[1].lstrip("\n")
    text = head + block + ("\n" + tail if tail else "")
else:
    text = text.rstrip("\n") + "\n\n" + block
open(path, "w").write(text)
PY
  echo "run.sh: recorded in bench/RESULTS.md" >&2
fi
