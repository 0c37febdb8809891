#!/usr/bin/env bash
# The test command (README "Run the tests"; .ci/run calls it): installs what is missing, then
# checks formatting and layering, builds and runs every test in a release build, runs the unit and
# integration tests again under ASan/UBSan, and gives each fuzz target a short run.
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh --quick    release build and unit tests only, for the edit-compile loop
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[[ "${1:-}" == "--quick" ]] && quick=1
jobs=$(nproc)
fuzz_seconds=${TY_FUZZ_SECONDS:-20}
# The Slurm tests fail instead of skipping when their test cluster cannot start (CI runs as root).
export TRAINYARD_REQUIRE_SLURM=${TRAINYARD_REQUIRE_SLURM:-1}
# Likewise the container tests when podman or the base image is missing.
export TRAINYARD_REQUIRE_CONTAINERS=${TRAINYARD_REQUIRE_CONTAINERS:-1}
# Likewise the disk-full test when it cannot mount its small tmpfs.
export TRAINYARD_REQUIRE_TMPFS=${TRAINYARD_REQUIRE_TMPFS:-1}
# Likewise the console's browser tests when Chromium is missing.
export TRAINYARD_REQUIRE_BROWSER=${TRAINYARD_REQUIRE_BROWSER:-1}

step() { printf '\n=== %s\n' "$*"; }

step "setup"
bash scripts/setup.sh

step "format (clang-format --dry-run --Werror)"
mapfile -t sources < <(git ls-files 'src/*.h' 'src/*.cc' 'tests/*.h' 'tests/*.cc' 'fuzz/*.cc')
clang-format --dry-run --Werror "${sources[@]}"

step "layers"
bash scripts/check_layers.sh

step "release build"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"

if ((quick)); then
  step "unit tests (release)"
  ctest --preset release -L unit -j "$jobs"
  exit 0
fi

step "clang-tidy"
bash scripts/tidy.sh build/release

step "container base image"
bash scripts/base_image.sh  # the container tests' offline image, built once (about 1 min)

step "all tests (release)"
ctest --preset release -j "$jobs"

step "asan build"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"

step "unit and integration tests (asan)"
ctest --preset asan -L 'unit|integration' -j "$jobs"

step "fuzz targets (${fuzz_seconds}s each)"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs" --target json_codec_fuzz config_file_fuzz log_filter_fuzz \
  hostlist_fuzz slurm_status_fuzz tfjob_fuzz access_fuzz http_parsers_fuzz vertex_fuzz
for triple in json:json_codec_fuzz:model yaml:config_file_fuzz:model \
    logfilter:log_filter_fuzz:log_filter hostlist:hostlist_fuzz:hostlist \
    slurm_status:slurm_status_fuzz:slurm_status tfjob:tfjob_fuzz:tfjob \
    access:access_fuzz:access http:http_parsers_fuzz:http vertex:vertex_fuzz:vertex; do
  IFS=: read -r corpus target dict <<<"$triple"
  mkdir -p "build/fuzz/corpus/$corpus"
  echo "$target: ${fuzz_seconds}s"
  "build/fuzz/fuzz/$target" -max_total_time="$fuzz_seconds" -timeout=5 -dict="fuzz/$dict.dict" \
    -artifact_prefix=build/fuzz/ -print_final_stats=1 "build/fuzz/corpus/$corpus" \
    "fuzz/corpus/$corpus" 2>&1 | grep -E '^stat::(number_of_executed_units|average_exec_per_sec)|==ERROR|^ERROR|SUMMARY' || true
  if compgen -G "build/fuzz/crash-*" >/dev/null || compgen -G "build/fuzz/timeout-*" >/dev/null; then
    echo "fuzzing $target found a crash or timeout: see build/fuzz/"
    exit 1
  fi
done

step "summary"
ctest --preset release -N | tail -n 1
echo "all checks passed"
