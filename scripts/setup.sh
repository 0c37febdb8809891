#!/usr/bin/env bash
# Installs every Debian package trainyard needs to build, test and run its examples.
# Idempotent; for a fresh Debian 12 machine, run as root (or with sudo available).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build ccache mold pkg-config git
  clang clang-format clang-tidy libclang-rt-14-dev
  # libraries (DESIGN.md "Dependencies")
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev libspdlog-dev
  libsqlite3-dev sqlite3 libboost-dev libboost-system-dev libeigen3-dev libssl-dev
  # Python runtime for trainers (Debian's interpreter: /usr/bin/python3)
  python3 python3-pip python3-setuptools python3-wheel python3-numpy
  # what the example trainers train with (examples/): Debian's builds, no PyPI
  python3-sklearn python3-torch python3-xgboost
  # container images (issue #16): rootful podman with runc (crun refuses cgroup v1/hybrid
  # hosts), catatonit for --init, CNI plugins for `podman build`; debootstrap builds the offline
  # base image (scripts/base_image.sh) and docker-registry serves the tests' loopback registry
  podman runc conmon catatonit containernetworking-plugins debootstrap docker-registry
  # the client libraries programs use, driven by the e2e tests (issue #36)
  python3-googleapi python3-kubernetes
  # tools the tests and benchmarks drive
  curl wrk procps
  # the TLS tests make their CA and certificates with it (issue #17)
  openssl
  # the web console (issue #18): Node.js builds it (npm ci, tsc, esbuild from the npm registry);
  # its browser tests drive Debian's Chromium (the browser Playwright would download is not
  # reachable)
  nodejs chromium
)

# The unprivileged user `trainyard serve --run-as` runs jobs as (issue #17); the tests use it.
job_user=trainyard-job

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages already installed"
else
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm comes with NodeSource's nodejs; Debian's nodejs needs Debian's npm beside it.
if ! command -v npm >/dev/null; then
  echo "setup: installing npm"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm
fi

if ! getent passwd "$job_user" >/dev/null; then
  echo "setup: creating the user $job_user (serve --run-as)"
  $SUDO useradd --system --user-group --create-home --home-dir "/var/lib/$job_user" \
    --shell /usr/sbin/nologin "$job_user"
fi
