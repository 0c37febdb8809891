#!/bin/bash
# The resource suite of issue #31 (bench/resources/resources.py) against a real server:
#
#   bench/resources/run.sh [--quick] [--binary PATH] [--out FILE]
#
# Starts `trainyard serve --auth tokens` on loopback with a fresh data dir and measures what
# unauthenticated bodies, floods of idle and slow clients, a revoked watch and 100,000 labels cost
# it; prints the figures and the aims, writes them to bench/resources/results.json (with the
# machine, the commit, the load and the open-file limit). --quick (under a minute) is a smoke
# check and writes to a temporary file unless --out is given. A few minutes in full.
# Exits 1 when the server does not start or dies, or an aim is grossly broken.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
binary="$root/build/release/trainyard" out=() quick=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=(--quick); shift ;;
    --binary) binary="$2"; shift 2 ;;
    --out) out=(--out "$2"); shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [[ ! -x "$binary" ]]; then
  echo "no trainyard binary at $binary (cmake --build --preset release --target trainyard)" >&2
  exit 1
fi
# The flood holds about 1,000 sockets and the server up to 512 connections: raise the soft
# open-file limit (recorded in the figures) as far as the hard one allows.
hard="$(ulimit -Hn)"
[[ "$hard" == unlimited ]] && hard=65536
ulimit -n "$hard" 2>/dev/null || true
if [[ "$(ulimit -n)" != unlimited ]] && (( $(ulimit -n) < 2048 )); then
  echo "the open-file limit is $(ulimit -n); the flood needs about 2,048" >&2
  exit 1
fi
exec /usr/bin/python3 "$here/resources.py" "${quick[@]}" "${out[@]}" --binary "$binary"
