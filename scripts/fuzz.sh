#!/usr/bin/env bash
# Runs each libFuzzer target of the fuzz preset (cmake --preset fuzz; fuzz/README.md) on its seed
# corpus (fuzz/corpus/<name>) and the corpus earlier runs grew (build/fuzz/corpus/<name>), then
# explores for the rest of SECONDS (default 20), as many targets at once as there are cores.
# Exits 1 when a target crashed or timed out, naming it; the input is in build/fuzz/.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
# corpus:target:dictionary
targets=(json:json_codec_fuzz:model yaml:config_file_fuzz:model logfilter:log_filter_fuzz:log_filter
  hostlist:hostlist_fuzz:hostlist slurm_status:slurm_status_fuzz:slurm_status tfjob:tfjob_fuzz:tfjob
  access:access_fuzz:access http:http_parsers_fuzz:http vertex:vertex_fuzz:vertex
  sharing:sharing_fuzz:sharing json_reader:json_reader_fuzz:model
  storage:storage_bodies_fuzz:storage)

one() {
  local corpus target dict
  IFS=: read -r corpus target dict <<<"$1"
  mkdir -p "build/fuzz/corpus/$corpus" "build/fuzz/findings/$target"
  local log="build/fuzz/findings/$target/run.log"
  "build/fuzz/fuzz/$target" -max_total_time="$2" -timeout=5 -dict="fuzz/$dict.dict" \
    -artifact_prefix="build/fuzz/findings/$target/" -print_final_stats=1 \
    "build/fuzz/corpus/$corpus" "fuzz/corpus/$corpus" >"$log" 2>&1 || true
  printf '%-18s %s\n' "$target" "$(grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' \
    "$log" | awk '{printf "%s %s  ", $1, $2}')"
  if compgen -G "build/fuzz/findings/$target/crash-*" >/dev/null ||
      compgen -G "build/fuzz/findings/$target/timeout-*" >/dev/null; then
    grep -E '==ERROR|^ERROR|SUMMARY' "$log" || true
    echo "fuzzing $target found a crash or timeout: see build/fuzz/findings/$target/"
    return 1
  fi
}
export -f one
printf '%s\n' "${targets[@]}" | xargs -P "$(nproc)" -I{} bash -c 'one "$1" "$2"' _ {} "$seconds"
