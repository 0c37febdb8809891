#!/usr/bin/env bash
# The README's main job. Sets up and builds trainyard, then:
#   1. checks the GPU page's config.yaml offline (and shows a refused one, with the field named);
#   2. starts `trainyard serve` on loopback with a fresh data directory, emulating GPUs when the
#      machine has none, and creates a bucket through its storage API;
#   3. submits the GPU page's cluster (a master and 9 workers with 4 T4 each, 3 parameter
#      servers) running the linear example trainer (examples/trainers/linear): the package is
#      built and uploaded, 13 replicas train data-parallel, and the job ends SUCCEEDED with the
#      model and its metrics in gs://demo-bucket/linear;
#      (its master's log followed live with `trainyard jobs stream-logs`);
#   4. drives the same server with the real gcloud CLI, when it is installed: a second job,
#      submitted with --stream-logs, described and its output listed.
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

job_flags=(--config examples/configs/seed_gpu.yaml --region us-central1
           --module-name trainer.task --runtime-version 2.11 --python-version 3.7)
package_flags=(--package-path examples/trainers/linear/trainer --staging-bucket gs://demo-bucket)

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
"$ty" jobs validate seed_gpu_job "${job_flags[@]}" --packages gs://demo-bucket/trainer-0.1.tar.gz

say "A config the GPU page says is refused (T4, K80 and P100 in no single zone)"
"$ty" jobs validate zone_mix --config examples/configs/refused_zone_mix.yaml --region us-central1 \
  --module-name trainer.task --packages gs://demo-bucket/trainer-0.1.tar.gz || true

emulation=()
command -v nvidia-smi >/dev/null || emulation=(--accelerator-emulation)
say "Starting trainyard serve ${emulation[*]}"
"$ty" serve --listen 127.0.0.1:0 --data-dir "$work/data" "${emulation[@]}" 2>"$work/serve.log" &
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

say "Submitting the GPU page's cluster with the linear example trainer"
"$ty" jobs submit training seed_gpu_job "${job_flags[@]}" "${package_flags[@]}" \
  --job-dir gs://demo-bucket/linear --labels team=research -- --epochs 300
say "Listing jobs"
"$ty" jobs list
say "Updating its labels"
"$ty" jobs update seed_gpu_job --update-labels stage=demo
say "Following the master's logs until the job ends (trainyard jobs stream-logs)"
"$ty" jobs stream-logs seed_gpu_job --task-name master-replica-0
wait_for seed_gpu_job
say "Describing it"
"$ty" jobs describe seed_gpu_job
say "The model's metrics (gs://demo-bucket/linear/metrics.json)"
curl -sS "${url}storage/v1/b/demo-bucket/o/linear%2Fmetrics.json?alt=media"
echo

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
  # --stream-logs follows the job's logs (to stderr) until it ends, polling every second.
  CLOUDSDK_ML_ENGINE_POLLING_INTERVAL=1 gcloud ai-platform jobs submit training gcloud_job \
    --region us-central1 --module-name trainer.task --runtime-version 2.11 --python-version 3.7 \
    "${package_flags[@]}" --job-dir gs://demo-bucket/gcloud --stream-logs -- --epochs 100
  wait_for gcloud_job
  gcloud ai-platform jobs list
  gcloud ai-platform jobs describe gcloud_job --format='value(jobId,state,startTime,endTime)'
  gcloud storage ls gs://demo-bucket/gcloud/
fi
say "Done"
