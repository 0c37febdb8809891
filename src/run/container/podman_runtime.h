// The `ContainerRuntime` for this machine: rootful podman (Debian 12's 4.3), configured by flags
// rather than by editing /etc (run/container/podman_command.h says which and why). Detection
// (`DetectPodmanHost`) finds podman and an OCI runtime that works with the host's cgroups (runc
// where cgroups are v1 or hybrid, which crun refuses), catatonit for `--init`, ulimits podman's
// runtime may set, and the host's NVIDIA devices (CDI spec, else device nodes and the driver's
// libraries). Images come from podman's own storage (so `podman build` output is used as is);
// pulls are the image's registry's, with the operator's credentials file and plain-HTTP
// registries. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "run/container/podman_command.h"
#include "run/container_runtime.h"

namespace trainyard::run::container {

struct PodmanOptions {
  std::string podman;                // "" looks up `podman` on PATH
  std::vector<std::string> ulimits;  // "nofile=S:H"…; empty: from this process's limits
  std::string auth_file;             // registry credentials (containers-auth.json format)
  std::vector<std::string> insecure_registries;  // "127.0.0.1:5000": plain HTTP allowed
  std::chrono::seconds pull_timeout{1800};
};

// What this host has; `podman` is "" when no podman is installed (then `Available` says how to
// install one). Never fails: what cannot be detected is left out.
PodmanHost DetectPodmanHost(const PodmanOptions& options);

// The registries the operator may list as plain HTTP: loopback only ("127.0.0.1:5000",
// "localhost:5000", "[::1]:5000"). INVALID_ARGUMENT naming the entry otherwise.
Status CheckInsecureRegistry(const std::string& registry);

class PodmanRuntime final : public ContainerRuntime {
 public:
  PodmanRuntime(PodmanHost host, std::chrono::seconds pull_timeout);

  Status Available() const override;
  std::vector<std::string> RunCommand(
      const ContainerSpec& spec,
      const std::vector<std::pair<std::string, std::string>>& env) const override;
  void Kill(const std::string& name, int signal) override;
  Status Pull(const std::string& image, const Progress& progress) override;

  const PodmanHost& host() const { return host_; }

 private:
  void Remember(const std::string& image);

  const PodmanHost host_;
  const std::chrono::seconds pull_timeout_;
  // Images found or pulled by this runtime: not asked about again (`podman image exists` costs
  // about 50 ms of every start). One removed meanwhile fails its `podman run` ("image not
  // known", in the replica's log).
  std::mutex mu_;
  std::set<std::string, std::less<>> present_;  // guarded by mu_
};

}  // namespace trainyard::run::container
