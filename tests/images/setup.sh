#!/usr/bin/env bash
# CTest fixture setup `container_images` (tests/images/CMakeLists.txt): the base image
# (scripts/base_image.sh, built once), the test images built from trainer/ and worker/, and a
# loopback docker-registry holding 127.0.0.1:PORT/trainyard-test/pulled:1 (a copy of the trainer
# image that is not in local storage, so a job must pull it). Writes STATE_DIR/env
# (REGISTRY=127.0.0.1:PORT). Without podman it says why in STATE_DIR.unavailable and exits 0 (the
# tests skip), unless TRAINYARD_REQUIRE_CONTAINERS=1.
#   setup.sh STATE_DIR
set -uo pipefail
state_dir=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$state_dir"
rm -f "$state_dir/env" "$state_dir.unavailable"

unavailable() {
  echo "container_images: $1"
  printf '%s\n' "$1" >"$state_dir.unavailable"
  [[ ${TRAINYARD_REQUIRE_CONTAINERS:-} == 1 ]] && exit 1
  exit 0
}
command -v podman >/dev/null || unavailable "podman is not installed (scripts/setup.sh installs it)"
command -v docker-registry >/dev/null || unavailable "docker-registry is not installed"
bash "$repo/scripts/base_image.sh" || unavailable "the base image could not be built"
podman build -q -t localhost/trainyard-test/trainer:1 "$here/trainer" >/dev/null ||
  unavailable "podman build of tests/images/trainer failed"
podman build -q -t localhost/trainyard-test/worker:1 "$here/worker" >/dev/null ||
  unavailable "podman build of tests/images/worker failed"

# The registry, on a free loopback port.
if [[ -f $state_dir/registry.pid ]]; then
  kill "$(cat "$state_dir/registry.pid")" 2>/dev/null
fi
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$state_dir/registry.yml" <<YAML
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $state_dir/registry
http:
  addr: 127.0.0.1:$port
YAML
setsid docker-registry serve "$state_dir/registry.yml" >"$state_dir/registry.log" 2>&1 </dev/null &
echo $! >"$state_dir/registry.pid"
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/v2/" >/dev/null && break
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/v2/" >/dev/null || unavailable "docker-registry did not start: $(tail -3 "$state_dir/registry.log")"
pulled=127.0.0.1:$port/trainyard-test/pulled:1
podman push -q --tls-verify=false localhost/trainyard-test/trainer:1 "$pulled" >/dev/null ||
  unavailable "podman push to the test registry failed"
podman rmi -f "$pulled" >/dev/null 2>&1 || true
echo "REGISTRY=127.0.0.1:$port" >"$state_dir/env"
echo "container_images: images built, registry on 127.0.0.1:$port"
