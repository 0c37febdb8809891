// The podman command lines trainyard runs, as pure functions of what was detected on the host
// (run/container/podman_runtime.h detects it). A replica is
//
//   podman run --rm --replace --name NAME --label trainyard.…=… --pull never --network host
//              [--add-host NAME:ADDRESS…] --init [--runtime R] --ulimit nofile=S:H
//              --ulimit nproc=S:H --log-driver none [--workdir DIR] --env K=V…
//              --volume HOST:PATH… [GPU devices] [--entrypoint JSON] IMAGE [ARGS…]
//
// - attached (no -d): the container's stdout and stderr are the client's, which the replica
//   supervisor records; podman's sig-proxy passes the stop signals on; the client's exit status
//   is the container's (128 + N when killed by signal N: see ContainerExitStatus);
// - `--init` (catatonit) is PID 1 so the trainer is not, and a SIGTERM ends a trainer without a
//   handler as it ends a process; `--replace` removes a leftover container of the same name (a
//   replica restarted after its client was killed);
// - `--pull never`: images are pulled in PREPARING (PullCommand), so a run never hangs on one;
// - `--network host`: replicas reach each other at the addresses in TF_CONFIG and trainyard's
//   storage API at STORAGE_EMULATOR_HOST, as processes do; `--add-host` lines (which podman 4.3
//   writes to the container's /etc/hosts with host networking too) name the peers of a Kubeflow
//   job as its Services would;
// - `--workdir` must name a directory the image has: podman 4.3 refuses to create one the user
//   names (the client exits 126 saying so), unlike Kubernetes;
// - ulimits are explicit (podman's defaults are refused where the server lacks
//   CAP_SYS_RESOURCE); `--log-driver none`: the supervisor keeps the only copy of the output;
// - GPUs: CDI (`--device nvidia.com/gpu=N`) when the host has a CDI spec for them, else the
//   `/dev/nvidiaN` nodes of those GPUs, the driver's control devices and its libraries
//   (read-only, under /usr/local/nvidia/lib64, which LD_LIBRARY_PATH then names).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "run/launcher.h"

namespace trainyard::run::container {

enum class GpuAccess {
  kNone,         // no NVIDIA GPU on this host: device indices are refused
  kCdi,          // a CDI spec names nvidia.com/gpu devices
  kDeviceNodes,  // /dev/nvidia<N> nodes and the driver's libraries
};

// Where the driver's libraries are mounted inside a container (GpuAccess::kDeviceNodes).
inline constexpr std::string_view kDriverLibraryDir = "/usr/local/nvidia/lib64";

// One of the driver's libraries: the file on the host (its real path, a versioned name such as
// libcuda.so.580.159.04) and the name the dynamic loader asks for (its soname, libcuda.so.1),
// which is the name it gets inside the container.
struct DriverFile {
  std::string path;
  std::string name;

  bool operator==(const DriverFile&) const = default;
};

// What podman needs on this host, as detected (or set by the operator).
struct PodmanHost {
  std::string podman;  // the podman executable (a path); "" when there is none
  // What else keeps containers from running here, for users ("" when nothing does).
  std::string missing;
  std::string runtime;  // the OCI runtime to name (`--runtime`); "" for podman's default
  bool init = true;     // run catatonit as PID 1 (`--init`)
  std::vector<std::string> ulimits;  // "nofile=20000:20000", "nproc=32768:32768"
  GpuAccess gpu = GpuAccess::kNone;
  std::vector<std::string> control_devices;  // /dev/nvidiactl, /dev/nvidia-uvm, …
  std::vector<DriverFile> driver_files;      // libcuda.so.1, libnvidia-ml.so.1, …
  std::vector<std::string> driver_binaries;  // nvidia-smi (a path), mounted at the same path
  std::string auth_file;                     // registry credentials (`--authfile`), "" for none
  // Registries ("127.0.0.1:5000") the operator allows over plain HTTP (`--tls-verify=false`).
  std::vector<std::string> insecure_registries;

  bool operator==(const PodmanHost&) const = default;
};

// The `podman run` command (argv, podman first) for `spec` with environment `env`.
std::vector<std::string> RunCommand(const PodmanHost& host, const ContainerSpec& spec,
                                    const std::vector<std::pair<std::string, std::string>>& env);

// The environment the container gets: `env`, with LD_LIBRARY_PATH naming the driver's
// libraries when the host mounts them (kDeviceNodes and devices given) and CUDA_VISIBLE_DEVICES
// renumbered to what the container sees (its k GPUs are 0…k-1 inside).
std::vector<std::pair<std::string, std::string>> ContainerEnvironment(
    const PodmanHost& host, const ContainerSpec& spec,
    std::vector<std::pair<std::string, std::string>> env);

// The registry host of an image reference ("127.0.0.1:5000/a/b:1" -> "127.0.0.1:5000"); "" for
// a short name ("trainer:1", "library/x") that podman resolves itself.
std::string RegistryOf(std::string_view image);

// `podman image exists IMAGE` and `podman pull [--tls-verify=false] [--authfile F] IMAGE`.
std::vector<std::string> ExistsCommand(const PodmanHost& host, const std::string& image);
std::vector<std::string> PullCommand(const PodmanHost& host, const std::string& image);
// `podman kill --signal N NAME`.
std::vector<std::string> KillCommand(const PodmanHost& host, const std::string& name, int signal);
// `podman rm -f --time 0 --ignore NAME`: kills and removes the container in whatever state it
// is (a created one that never started included); no error when it is gone.
std::vector<std::string> RemoveCommand(const PodmanHost& host, const std::string& name);

// What a pull's output says went wrong: its last "Error: …" line without the prefix, else its
// last non-empty line.
std::string PullError(std::string_view output);

}  // namespace trainyard::run::container
