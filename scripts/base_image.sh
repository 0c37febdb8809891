#!/usr/bin/env bash
# Builds trainyard's offline base image for container tests and examples, once:
# `debootstrap --variant=minbase bookworm` with python3 from the configured Debian mirror, imported
# into podman as localhost/trainyard/debian-python:bookworm. Idempotent: an image already in
# podman's storage is kept (a second test run does not rebuild it; --rebuild forces it).
#   scripts/base_image.sh [--rebuild] [--mirror URL]
set -euo pipefail

image="localhost/trainyard/debian-python:bookworm"
mirror=""
rebuild=0
while (($#)); do
  case "$1" in
    --rebuild) rebuild=1 ;;
    --mirror) mirror="$2"; shift ;;
    *) echo "base_image: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if ((rebuild == 0)) && podman image exists "$image"; then
  echo "base_image: $image already built"
  exit 0
fi
if [[ -z $mirror ]]; then  # the machine's own Debian mirror, as apt uses it
  mirror=$(grep -h -o -E '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
    2>/dev/null | head -1 | awk '{print $2}' || true)
  mirror=${mirror:-http://deb.debian.org/debian}
fi

root=$(mktemp -d /var/tmp/trainyard-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "base_image: debootstrap bookworm from $mirror (a few minutes, once)"
started=$SECONDS
debootstrap --variant=minbase --include=python3,ca-certificates bookworm "$root" "$mirror" \
  > "$root.log" 2>&1 || { tail -20 "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV PYTHONUNBUFFERED=1' --change 'CMD ["/usr/bin/python3"]' - "$image" > /dev/null
echo "base_image: built $image in $((SECONDS - started)) s"
