#!/bin/bash
# A GPU container job on a machine with a real NVIDIA GPU and no container engine installed (the
# device machines): podman, runc, conmon and catatonit come as Debian 12 .debs in
# $TY_DEV/pod/debs, with the shared libraries they need from Debian in $TY_DEV/pod/lib
# (tests/gpu/prepare.sh fills both). It unpacks them under /tmp/pod (not over /), configures
# podman (cgroupfs, vfs storage, runc), imports a tiny image made of the glibc files nvidia-smi
# needs, and runs `nvidia-smi -L` in it as a TFJob asking for one GPU
# through `trainyard serve --containers podman`, which gives the container the GPU's device
# nodes, the driver's libraries and nvidia-smi (or CDI when the host has a spec). Runs as root.
set -x
DEV=$PWD/${TY_DEV:-.dev}
P=/tmp/pod
OUT=${OUT:-/tmp}
uname -a; head -2 /etc/os-release
ls -la /dev/nvidia* 2>&1 | head; mount | grep -E "cgroup|^overlay| / " | head -5
smi=$(command -v nvidia-smi); echo "nvidia-smi: $smi"
ldconfig -p | grep -E "libcuda.so.1|libnvidia-ml.so.1"
rm -rf $P; mkdir -p $P
for deb in "$DEV"/pod/debs/*.deb; do dpkg -x "$deb" $P; done
cat > $P/podman <<WRAP
#!/bin/sh
LD_LIBRARY_PATH=$DEV/pod/lib exec $P/usr/bin/podman "\$@"
WRAP
chmod 755 $P/podman
# podman runs conmon with an environment of its own: conmon finds its libraries through a wrapper.
cat > $P/conmon <<WRAP
#!/bin/sh
LD_LIBRARY_PATH=$DEV/pod/lib exec $P/usr/bin/conmon "\$@"
WRAP
chmod 755 $P/conmon
ldd $P/usr/sbin/runc | grep "not found"
[ -e /usr/bin/catatonit ] || cp $P/usr/bin/catatonit /usr/bin/catatonit
mkdir -p /etc/containers
echo '{"default": [{"type": "insecureAcceptAnything"}]}' > /etc/containers/policy.json
printf '[storage]\ndriver = "vfs"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n' \
  > /etc/containers/storage.conf
conf() {
  cat <<CONF
[containers]
init_path = "/usr/bin/catatonit"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
conmon_path = ["$P/conmon"]
helper_binaries_dir = ["$P/usr/libexec/podman", "/usr/bin"]
runtime = "runc"
[engine.runtimes]
runc = ["$P/usr/sbin/runc"]
CONF
}
conf > /etc/containers/containers.conf
export PATH=$P/usr/sbin:$PATH
$P/podman version 2>&1 | head -3
# The image: nvidia-smi's glibc files, nothing else (nvidia-smi itself is mounted from the host).
root=/tmp/smi-root; rm -rf $root; mkdir -p $root/tmp $root/etc
for lib in $(ldd "$smi" | grep -o '/[^ ]*'); do cp --parents -L "$lib" $root; done
du -sh $root
tar -C $root -c . | $P/podman import - localhost/smi:1
ROOT=/srv/tyc; PORT=8471
rm -rf $ROOT; mkdir -p $ROOT
LD_LIBRARY_PATH=$DEV/lib "$DEV"/bin/trainyard serve --listen 127.0.0.1:$PORT --data-dir $ROOT/data --podman $P/podman \
  > "$OUT"/container_server.log 2>&1 &
server=$!
for i in $(seq 100); do curl -sf 127.0.0.1:$PORT/healthz >/dev/null && break; sleep 0.1; done
python3 "$(dirname "$0")/submit.py" http://127.0.0.1:$PORT/ $ROOT/data smi-in-podman localhost/smi:1 1 "$smi" -L
echo "CONTAINER_JOB_EXIT $?"
kill $server; wait $server
grep -v '^$' "$OUT"/container_server.log | tail -15
