#!/usr/bin/env bash
# clang-tidy (the repo's .clang-tidy) over every .cc under src/, using BUILD_DIR's
# compile_commands.json. Runs two files at a time; exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/release}
mapfile -t files < <(git ls-files 'src/*.cc')
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -n 4 clang-tidy -p "$build_dir" --quiet 2> >(grep -v -E '^[0-9]+ warnings? generated|^Suppressed|^Use -header-filter' >&2)
echo "clang-tidy: ${#files[@]} files clean"
