#!/usr/bin/env bash
# The README's main job. Sets up and builds trainyard, then:
#   1. checks the GPU page's config.yaml offline (and shows a refused one, with the field named);
#   2. starts `trainyard serve` on loopback with a fresh data directory;
#   3. submits the job to it with the trainyard CLI, lists and describes it, updates its labels;
#   4. drives the same server with the real gcloud CLI, when it is installed.
# Later milestones turn the job into real training (see the issues); today jobs stay QUEUED.
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
           --module-name trainer.task --packages gs://demo-bucket/trainer-0.1.tar.gz
           --runtime-version 2.11 --python-version 3.7)

say "The accelerators trainyard knows"
"$ty" catalog accelerators

say "Validating the GPU page's config.yaml (master + 9 workers with 4 T4 each, 3 parameter servers)"
"$ty" jobs validate seed_gpu_job "${job_flags[@]}"

say "A config the GPU page says is refused (T4, K80 and P100 in no single zone)"
"$ty" jobs validate zone_mix --config examples/configs/refused_zone_mix.yaml --region us-central1 \
  --module-name trainer.task --packages gs://demo-bucket/trainer-0.1.tar.gz || true

say "Starting trainyard serve"
"$ty" serve --listen 127.0.0.1:0 --data-dir "$work/data" 2>"$work/serve.log" &
server_pid=$!
for _ in $(seq 100); do
  grep -q 'serving on' "$work/serve.log" 2>/dev/null && break
  sleep 0.1
done
cat "$work/serve.log"
url=$(grep -o 'http://[^ ]*' "$work/serve.log")
export TRAINYARD_SERVER=$url TRAINYARD_PROJECT=demo

say "Submitting it"
"$ty" jobs submit training seed_gpu_job "${job_flags[@]}" --labels team=research
say "Listing jobs"
"$ty" jobs list
say "Updating its labels"
"$ty" jobs update seed_gpu_job --update-labels stage=demo
say "Describing it"
"$ty" jobs describe seed_gpu_job

if command -v gcloud >/dev/null; then
  say "The same server through the real gcloud CLI"
  export CLOUDSDK_CONFIG=$work/gcloud
  for setting in "core/project demo" "api_endpoint_overrides/ml $url" \
      "auth/disable_credentials true" "core/disable_usage_reporting true" \
      "component_manager/disable_update_check true"; do
    # shellcheck disable=SC2086
    gcloud config set $setting >/dev/null 2>&1
  done
  gcloud ai-platform jobs list
  gcloud ai-platform jobs cancel seed_gpu_job
  gcloud ai-platform jobs describe seed_gpu_job --format='value(jobId,state,endTime,labels)'
fi
say "Done"
