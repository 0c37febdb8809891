#!/bin/bash
# The kill-and-restart test (tests/e2e/kill_restart_test.py) as a longer run, for bench/RESULTS.md:
#
#   bench/restart/run.sh [--rounds N] [--clients C] [--seconds S] [--staging SHARE]
#                        [--packages N] [--binary PATH] [--out FILE]
#
# Defaults: 50 rounds, 4 clients, a server lives 0.3 s to 2 s between kills, a quarter of the jobs
# stage a Python package (2 new packages a round: CI's run takes 0.1 and 1), build/release's
# trainyard, figures to bench/restart/results.json (with the machine, the commit and the load).
# As root the server runs with `--auth tokens --run-as trainyard-job` (scripts/setup.sh makes
# the user).
# The test's own assertions still hold: the run fails when anything was lost, run twice or left.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rounds=50 clients=4 seconds=2.0 staging=0.25 packages=2
binary="$root/build/release/trainyard" out="$here/results.json"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --staging) staging="$2"; shift 2 ;;
    --packages) packages="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
figures="$(mktemp)"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
TY_KILL_ROUNDS="$rounds" TY_KILL_CLIENTS="$clients" TY_KILL_SECONDS="$seconds" \
  TY_KILL_STAGING="$staging" TY_KILL_PACKAGES="$packages" TY_KILL_RUN_AS=1 \
  TY_KILL_FIGURES="$figures" \
  /usr/bin/python3 "$root/tests/e2e/kill_restart_test.py" --trainyard "$binary" || rc=$?
/usr/bin/python3 - "$figures" "$out" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$(git -C "$root" rev-parse --short HEAD)" "$rc" <<'PY'
import json, os, sys
figures_path, out, before, after, commit, rc = sys.argv[1:]
figures = json.load(open(figures_path)) if os.path.getsize(figures_path) else {}
figures.update({"commit": commit, "cpus": os.cpu_count(), "load_before": before,
                "load_after": after, "test_rc": int(rc)})
json.dump(figures, open(out, "w"), indent=1)
print("figures written to", out)
PY
rm -f "$figures"
exit "$rc"
