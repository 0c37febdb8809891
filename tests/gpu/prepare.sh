#!/bin/bash
# Fills $TY_DEV (default .dev, ignored by git) for the device checks (standing.sh), on this
# Debian 12 machine after a release build: trainyard's binaries, stripped, with the shared
# libraries they need that a CUDA image may lack; Debian's podman, runc, conmon, catatonit and
# containers-common .debs with the libraries of their binaries (pod/). About 40 MiB, under the
# 64 MiB a device call carries.
set -euo pipefail
cd "$(dirname "$0")/../.."
DEV=${TY_DEV:-.dev}
BUILD=${TY_BUILD:-build/release}
rm -rf "$DEV"; mkdir -p "$DEV"/bin "$DEV"/lib "$DEV"/pod/debs "$DEV"/pod/lib
# glibc's own libraries and the C++ runtime come from the machine that runs them.
own='linux-vdso|ld-linux|/libc\.so|/libm\.so|/libpthread|/libdl\.so|/librt\.so|libstdc\+\+|libgcc_s'
libs_of() { ldd "$@" | grep -o '/[^ ]*\.so[^ ]*' | grep -Ev "$own" | sort -u; }
for binary in trainyard trainyard-replica; do
  strip -o "$DEV/bin/$binary" "$BUILD/$binary"
done
cp -r "$BUILD/python" "$DEV/bin/python"
for lib in $(libs_of "$DEV"/bin/trainyard "$DEV"/bin/trainyard-replica); do cp -L "$lib" "$DEV/lib/"; done
(cd "$DEV/pod/debs" && apt-get download -q podman runc conmon catatonit golang-github-containers-common >/dev/null)
for lib in $(libs_of /usr/bin/podman /usr/bin/conmon /usr/sbin/runc); do cp -L "$lib" "$DEV/pod/lib/"; done
du -sh "$DEV" "$DEV"/*
