#!/usr/bin/env bash
# The README's main job. Sets up and builds trainyard, then:
#   1. checks the GPU page's config.yaml offline (and shows a refused one, with the field named);
#   2. starts `trainyard serve` on loopback with a fresh data directory, emulating GPUs when the
#      machine has none, and creates a bucket through its storage API;
#   3. submits the PyTorch data-parallel example (examples/pytorch_ddp: a master and two workers,
#      DistributedDataParallel over gloo, a CNN on scikit-learn's digits) with its config.yaml,
#      follows its logs live (--stream-logs) until it SUCCEEDS, then prints its description and
#      the model's test accuracy from gs://demo-bucket/ddp/metrics.json;
#   4. drives the same server with the real gcloud CLI, when it is installed: the scikit-learn
#      digits example submitted with --stream-logs, described and its output listed.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target trainyard
ty=build/release/trainyard

work=$(mktemp -d)
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

seed_flags=(--config examples/configs/seed_gpu.yaml --region us-central1
            --module-name trainer.task --packages gs://demo-bucket/trainer-0.1.tar.gz)

# Waits until job $1 has ended and prints its final state.
wait_for() {
  local state=""
  for _ in $(seq 600); do
    state=$("$ty" jobs describe "$1" | sed -n 's/^state: //p')
    case "$state" in SUCCEEDED|FAILED|CANCELLED) break ;; esac
    sleep 0.5
  done
  echo "$1: $state"
  [[ "$state" == SUCCEEDED ]]
}

say "The accelerators trainyard knows"
"$ty" catalog accelerators

say "Validating the GPU page's config.yaml (master + 9 workers with 4 T4 each, 3 parameter servers)"
"$ty" jobs validate seed_gpu_job "${seed_flags[@]}"

say "A config the GPU page says is refused (T4, K80 and P100 in no single zone)"
"$ty" jobs validate zone_mix --config examples/configs/refused_zone_mix.yaml --region us-central1 \
  --module-name trainer.task --packages gs://demo-bucket/trainer-0.1.tar.gz || true

emulation=()
command -v nvidia-smi >/dev/null || emulation=(--accelerator-emulation)
say "Starting trainyard serve ${emulation[*]}"
"$ty" serve --listen 127.0.0.1:0 --data-dir "$work/data" --stop-jobs-on-exit "${emulation[@]}" \
  2>"$work/serve.log" &
server_pid=$!
for _ in $(seq 100); do
  grep -q 'serving on' "$work/serve.log" 2>/dev/null && break
  sleep 0.1
done
cat "$work/serve.log"
url=$(grep -o 'http://[^ ]*' "$work/serve.log")
export TRAINYARD_SERVER=$url TRAINYARD_PROJECT=demo

say "Creating the bucket gs://demo-bucket (storage v1 API)"
curl -sS -X POST "${url}storage/v1/b?project=demo" -H 'Content-Type: application/json' \
  -d '{"name": "demo-bucket"}'
echo

say "Submitting the PyTorch example (master + 2 workers, DDP over gloo) and following its logs"
"$ty" jobs submit training ddp_digits --config examples/pytorch_ddp/config.yaml \
  --region us-central1 --package-path examples/pytorch_ddp/ddp_digits \
  --module-name ddp_digits.task --staging-bucket gs://demo-bucket \
  --job-dir gs://demo-bucket/ddp --labels team=research --stream-logs
wait_for ddp_digits
say "Describing it"
"$ty" jobs describe ddp_digits
say "The model's test accuracy (gs://demo-bucket/ddp/metrics.json)"
curl -sS "${url}storage/v1/b/demo-bucket/o/ddp%2Fmetrics.json?alt=media" |
  /usr/bin/python3 -c 'import json, sys; m = json.load(sys.stdin); print("test accuracy %.4f after %d steps on %d ranks" % (m["test_accuracy"], m["steps"], m["world_size"]))'
"$ty" jobs list

if command -v gcloud >/dev/null; then
  say "The same server through the real gcloud CLI"
  export CLOUDSDK_CONFIG=$work/gcloud
  for setting in "core/project demo" "api_endpoint_overrides/ml $url" \
      "api_endpoint_overrides/logging $url" "api_endpoint_overrides/storage ${url}storage/v1/" \
      "auth/disable_credentials true" "core/disable_usage_reporting true" \
      "component_manager/disable_update_check true"; do
    # shellcheck disable=SC2086
    gcloud config set $setting >/dev/null 2>&1
  done
  # gcloud builds the package where it lies: give it a copy. --stream-logs follows the job's logs
  # (to stderr) until it ends, polling every second.
  cp -r examples/sklearn_digits "$work/"
  CLOUDSDK_ML_ENGINE_POLLING_INTERVAL=1 gcloud ai-platform jobs submit training gcloud_job \
    --config examples/sklearn_digits/config.yaml --region us-central1 \
    --package-path "$work/sklearn_digits/digits_sklearn" --module-name digits_sklearn.task \
    --staging-bucket gs://demo-bucket --job-dir gs://demo-bucket/gcloud --stream-logs
  wait_for gcloud_job
  gcloud ai-platform jobs list
  gcloud ai-platform jobs describe gcloud_job --format='value(jobId,state,startTime,endTime)'
  gcloud storage ls gs://demo-bucket/gcloud/
  gcloud storage cat gs://demo-bucket/gcloud/metrics.json
  echo
fi
say "Done"
