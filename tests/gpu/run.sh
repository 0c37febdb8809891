#!/bin/bash
# A check for a machine with a real NVIDIA GPU, which CI does not have (run it by hand, or through
# a session's device tool): tfjob_gpu_check.py under `trainyard serve --run-as trainyard-job
# --containers host`. It needs $TY_DEV (default .dev, ignored by git) as tests/gpu/prepare.sh
# fills it; standing.sh runs it with the other device checks. Runs as root; creates the user
# trainyard-job when missing.
set -x
DEV=${TY_DEV:-.dev}
export LD_LIBRARY_PATH=$PWD/$DEV/lib
nvidia-smi -L
id trainyard-job || useradd --system --user-group --create-home --home-dir /var/lib/trainyard-job --shell /usr/sbin/nologin trainyard-job
ls -ld /opt /opt/torch /opt/torch/.venv/bin 2>&1 | head -3
command -v python3
py=$(command -v python3)
if ! setpriv --reuid=trainyard-job --regid=trainyard-job --clear-groups "$py" -c 'import torch; print("torch as the job user", torch.__version__)'; then
  echo "the job user cannot run $py: opening its directories"
  d=$(dirname "$(readlink -f "$py")"); while [ "$d" != / ]; do chmod o+rx "$d"; d=$(dirname "$d"); done
  chmod -R o+rX /opt/torch 2>/dev/null
  setpriv --reuid=trainyard-job --regid=trainyard-job --clear-groups "$py" -c 'import torch; print("torch as the job user", torch.__version__)'
fi
ROOT=${TY_ROOT:-/srv/ty}; PORT=${TY_PORT:-8470}
rm -rf $ROOT; mkdir -p $ROOT; chmod 711 $ROOT
$DEV/bin/trainyard serve --listen 127.0.0.1:$PORT --data-dir $ROOT/data --run-as trainyard-job \
  --containers host --python "$(command -v python3)" $TY_EXTRA > ${OUT:-/tmp}/server.log 2>&1 &
server=$!
for i in $(seq 100); do curl -sf 127.0.0.1:$PORT/healthz >/dev/null && break; sleep 0.1; done
python3 "$(dirname "$0")/tfjob_gpu_check.py" http://127.0.0.1:$PORT/ $ROOT/data
kill $server; wait $server
head -3 ${OUT:-/tmp}/server.log
tail -5 ${OUT:-/tmp}/server.log
