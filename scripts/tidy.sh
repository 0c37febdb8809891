#!/usr/bin/env bash
# clang-tidy over src/'s .cc files (scripts/tidy.py says which and why): configures the `tidy`
# preset, which writes each file's own compile command and builds nothing, then checks each file
# that has not passed as it is.
#   scripts/tidy.sh [--since REV | --all-files]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset tidy >/dev/null
exec /usr/bin/python3 scripts/tidy.py build/tidy "$@"
