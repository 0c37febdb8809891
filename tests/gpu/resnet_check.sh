#!/bin/bash
# The seeds' benchmark on a real GPU: bench/gpu/resnet50.py bare (as root) and as a TFJob's
# replica through `trainyard serve --run-as trainyard-job --containers host`, in the order
# bare, trainyard, trainyard, bare so that a drift of the machine falls on both alike; prints
# each run's images/s and RESNET50_RATIO (trainyard / bare, means of the two). Runs after run.sh,
# which creates the job user and opens python3's directories to it.
set -x
DEV=$PWD/${TY_DEV:-.dev}
OUT=${OUT:-/tmp}

B=/srv/tyb; mkdir -p $B; cp bench/gpu/resnet50.py $B/; chmod 755 $B; chmod 644 $B/resnet50.py
ROOT=/srv/tyr; PORT=8472
rm -rf $ROOT; mkdir -p $ROOT; chmod 711 $ROOT
LD_LIBRARY_PATH=$DEV/lib "$DEV"/bin/trainyard serve --listen 127.0.0.1:$PORT --data-dir $ROOT/data --run-as trainyard-job \
  --containers host --python "$(command -v python3)" > "$OUT"/resnet_server.log 2>&1 &
server=$!
for i in $(seq 100); do curl -sf 127.0.0.1:$PORT/healthz >/dev/null && break; sleep 0.1; done
runs=$OUT/resnet_runs.txt; : > $runs
bare() { python3 $B/resnet50.py | sed 's/^RESNET50 /RESNET50 bare /' | tee -a $runs; }
via() {
  python3 "$(dirname "$0")/submit.py" http://127.0.0.1:$PORT/ $ROOT/data "$1" localhost/host:1 1 \
    python3 $B/resnet50.py | tee /tmp/$1.log
  grep -o 'RESNET50 .*' /tmp/$1.log | sed 's/^RESNET50 /RESNET50 trainyard /' | tee -a $runs
}
bare; via resnet-1; via resnet-2; bare
kill $server; wait $server
python3 - "$runs" <<'PY'
import json, sys
runs = {"bare": [], "trainyard": []}
for line in open(sys.argv[1]):
    _, kind, doc = line.split(" ", 2)
    runs[kind].append(json.loads(doc)["images_per_s"])
mean = {k: sum(v) / len(v) for k, v in runs.items() if v}
print("RESNET50_RUNS", json.dumps(runs))
if len(mean) == 2:
    print("RESNET50_RATIO %.4f (trainyard %.1f / bare %.1f images/s)" % (
        mean["trainyard"] / mean["bare"], mean["trainyard"], mean["bare"]))
PY
