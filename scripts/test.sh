#!/usr/bin/env bash
# The test command (README "The tests"; .ci/run calls it with --all).
#   scripts/test.sh          setup, format, layers, the release build, and every test: unit,
#                            integration and end-to-end (the real gcloud, kubectl, podman, Slurm
#                            and Chromium). What a contributor runs before a commit.
#   scripts/test.sh --quick  the release build, then the unit and integration tests: the
#                            edit-compile loop.
#   scripts/test.sh --all    all of the default, then clang-tidy (scripts/tidy.sh), the ASan+UBSan
#                            build and its unit and integration tests, and each fuzz target on its
#                            corpus plus a short exploration. What CI runs.
# Builds go through ccache (cmake/ccache.cmake), so a second run, or a fresh clone on a machine
# that built before, compiles only what changed. At the end it prints each stage's time; a stage
# over its share (the budgets below) is named with the ten slowest tests of the run.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=default
case "${1:-}" in
  "") ;;
  --quick) mode=quick ;;
  --all) mode=all ;;
  *) echo "usage: scripts/test.sh [--quick | --all]" >&2; exit 2 ;;
esac
cores=$(nproc)
# CTest's parallelism for the integration and end-to-end tests: one more than the cores, since
# those tests wait on their child processes part of the time (on 2 cores: 493 s at -j3, 501 s at
# -j4, about 580 s at -j2).
ctest_jobs=$((cores + 1))
fuzz_seconds=${TY_FUZZ_SECONDS:-20}
# Tests that would skip without their tool fail instead: Slurm's test cluster, podman and the base
# image, the tmpfs of the disk-full test, Chromium for the console, the Node.js client libraries.
export TRAINYARD_REQUIRE_SLURM=${TRAINYARD_REQUIRE_SLURM:-1}
export TRAINYARD_REQUIRE_CONTAINERS=${TRAINYARD_REQUIRE_CONTAINERS:-1}
export TRAINYARD_REQUIRE_TMPFS=${TRAINYARD_REQUIRE_TMPFS:-1}
export TRAINYARD_REQUIRE_BROWSER=${TRAINYARD_REQUIRE_BROWSER:-1}
export TRAINYARD_REQUIRE_NODE=${TRAINYARD_REQUIRE_NODE:-1}

# Each stage's share of the run, in seconds, on the machine CI uses (2 cores): measured times
# with room to spare (README "The tests" has the figures). A stage past its share is reported at
# the end; it fails nothing, since machines are shared and noisy.
declare -A budget=(
  [setup]=300 [format]=30 [layers]=10 [build]=900 [base-image]=240 [tests]=660
  [tidy]=1200 [asan-build]=900 [asan-tests]=420 [fuzz-build]=300 [fuzz]=300
)
stages=()
declare -A took=()
started_at=$SECONDS
stage_start=0
stage_name=""

begin() {
  finish
  stage_name=$1
  stage_start=$SECONDS
  printf '\n=== %s\n' "$2"
}
finish() {
  if [[ -n $stage_name ]]; then
    took[$stage_name]=$((SECONDS - stage_start))
    stages+=("$stage_name")
    stage_name=""
  fi
}

# The ten slowest tests of the last ctest run in build dir $1 (CTest's own timing).
slowest_tests() {
  local costs="$1/Testing/Temporary/CTestCostData.txt"
  [[ -f $costs ]] || return 0
  # sed, not head: head's early exit would end sort with SIGPIPE, and pipefail the script with it
  awk 'NF == 3 && $1 != "---" { printf "%8.1f s  %s\n", $3, $1 }' "$costs" | sort -rn |
    sed -n 1,10p
}

# At exit: the stage table, then the run's own exit status (a failed test's, not the table's).
summary() {
  local status=$?
  finish
  local over=() name
  printf '\n=== stage times (%s, %d cores)\n' "$mode" "$cores"
  for name in "${stages[@]}"; do
    printf '  %-11s %5d s   (share %d s)\n' "$name" "${took[$name]}" "${budget[$name]:-0}"
    if ((${budget[$name]:-0} > 0 && took[$name] > budget[$name])); then over+=("$name"); fi
  done
  printf '  %-11s %5d s\n' total $((SECONDS - started_at))
  for name in "${over[@]}"; do
    echo "warning: the stage '$name' took ${took[$name]} s, past its share of ${budget[$name]} s"
    case $name in
      tests) echo "  its ten slowest tests:"; slowest_tests build/release ;;
      asan-tests) echo "  its ten slowest tests:"; slowest_tests build/asan ;;
    esac
  done
  exit "$status"
}
trap summary EXIT

begin setup "setup"
bash scripts/setup.sh

begin format "format (clang-format --dry-run --Werror)"
mapfile -t sources < <(git ls-files 'src/*.h' 'src/*.cc' 'tests/*.h' 'tests/*.cc' 'fuzz/*.cc')
clang-format --dry-run --Werror "${sources[@]}"

begin layers "layers"
bash scripts/check_layers.sh

# The container tests' offline base image (scripts/base_image.sh), built once per machine: on a
# fresh machine debootstrap mostly waits on the mirror, so it runs beside the build.
base_image_log=""
if [[ $mode != quick ]]; then
  base_image_log=$(mktemp /tmp/trainyard-base-image.XXXXXX)
  bash scripts/base_image.sh > "$base_image_log" 2>&1 &
  base_image_pid=$!
fi

begin build "release build"
cmake --preset release >/dev/null
cmake --build --preset release -j "$cores"

# Unit tests: every case CTest lists, one process per test executable (scripts/unit_tests.py).
if [[ $mode == quick ]]; then
  begin tests "unit and integration tests (release)"
  /usr/bin/python3 scripts/unit_tests.py build/release --jobs "$cores"
  ctest --preset release -L integration -j "$ctest_jobs"
  exit 0
fi

begin base-image "container base image (waiting for what began beside the build)"
base_image_ok=1
wait "$base_image_pid" || base_image_ok=0
cat "$base_image_log"
rm -f "$base_image_log"
((base_image_ok)) || { echo "scripts/base_image.sh failed" >&2; exit 1; }

begin tests "all tests (release): unit, then integration and end-to-end"
/usr/bin/python3 scripts/unit_tests.py build/release --jobs "$cores"
ctest --preset release -LE unit -j "$ctest_jobs"

if [[ $mode == all ]]; then
  begin tidy "clang-tidy (files not yet passed as they are)"
  bash scripts/tidy.sh

  begin asan-build "asan build"
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$cores"

  begin asan-tests "unit and integration tests (asan)"
  /usr/bin/python3 scripts/unit_tests.py build/asan --jobs "$cores"
  ctest --preset asan -L integration -j "$ctest_jobs"

  begin fuzz-build "fuzz build"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$cores" --target json_codec_fuzz config_file_fuzz \
    log_filter_fuzz hostlist_fuzz slurm_status_fuzz tfjob_fuzz access_fuzz http_parsers_fuzz \
    vertex_fuzz sharing_fuzz json_reader_fuzz storage_bodies_fuzz

  begin fuzz "fuzz targets (the corpus, then ${fuzz_seconds} s of exploration each)"
  bash scripts/fuzz.sh "$fuzz_seconds"
fi

finish
echo
ctest --preset release -N | tail -n 1
echo "all checks passed"
