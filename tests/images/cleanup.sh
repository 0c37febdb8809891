#!/usr/bin/env bash
# CTest fixture cleanup `container_images`: stops the test registry and drops pulled copies.
#   cleanup.sh STATE_DIR
state_dir=$1
if [[ -f $state_dir/registry.pid ]]; then
  kill "$(cat "$state_dir/registry.pid")" 2>/dev/null
  rm -f "$state_dir/registry.pid"
fi
if [[ -f $state_dir/env ]]; then
  source "$state_dir/env"
  podman rmi -f "$REGISTRY/trainyard-test/pulled:1" >/dev/null 2>&1
fi
rm -rf "$state_dir/registry" "$state_dir/env"
exit 0
