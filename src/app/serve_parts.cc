#include "app/serve_parts.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "os/file.h"
#include "run/local/spawn.h"
#include "sched/host_inventory.h"

namespace trainyard::app {

// The text of the file an option names; INVALID_ARGUMENT on `option` when it cannot be read.
Result<std::string> ReadOptionFile(const std::string& path, const std::string& option,
                                   std::string_view what) {
  std::optional<std::string> text = os::ReadFileText(path);
  if (!text) {
    return Status::InvalidArgument(
        std::vector<FieldViolation>{{option, fmt::format("cannot read {} {}", what, path)}});
  }
  return std::move(*text);
}

// The nodes as a TFJob's mapping sees them: labels, and the accelerator types each offers.
std::vector<kube::NodeView> NodeViews(const sched::Inventory& inventory) {
  std::vector<kube::NodeView> views;
  for (const sched::Node& node : inventory.nodes) {
    kube::NodeView view{.name = node.name, .labels = node.labels};
    for (const sched::Device& device : node.devices) {
      if (!device.accelerator.empty() &&
          std::ranges::find(view.accelerators, device.accelerator) == view.accelerators.end()) {
        view.accelerators.push_back(device.accelerator);
      }
    }
    views.push_back(std::move(view));
  }
  return views;
}

// Whether CPUs and memory are exclusive (`--strict-resources`), as placement and the cluster view
// count them.
sched::Accounting AccountingOf(const ServeOptions& options) {
  return options.strict_resources ? sched::Accounting::kStrict : sched::Accounting::kShared;
}

Result<sched::Inventory> BuildInventory(const ServeOptions& options,
                                        const catalog::Catalog& catalog) {
  sched::Inventory inventory;
  if (!options.cluster_file.empty()) {
    Result<std::string> text =
        ReadOptionFile(options.cluster_file, "cluster_file", "the cluster file");
    if (!text.ok()) {
      return text.status();
    }
    Result<sched::Inventory> parsed = sched::ParseClusterFile(*text, catalog);
    if (!parsed.ok()) {
      return parsed.status();
    }
    inventory = std::move(*parsed);
  } else {
    Result<sched::Node> local = sched::DetectLocalNode(catalog);
    if (!local.ok()) {
      return local.status();
    }
    inventory.nodes.push_back(std::move(*local));
  }
  if (options.accelerator_emulation > 0) {
    for (sched::Node& node : inventory.nodes) {
      node =
          sched::WithEmulatedAccelerators(std::move(node), catalog, options.accelerator_emulation);
    }
  }
  return inventory;
}

// The Slurm backend for `--backend slurm`; null for the local backend.
Result<std::unique_ptr<run::slurm::SlurmBackend>> BuildSlurmBackend(
    const ServeOptions& options, const catalog::Catalog& catalog) {
  if (options.backend == "local") {
    return std::unique_ptr<run::slurm::SlurmBackend>();
  }
  if (options.backend != "slurm") {
    return Status::InvalidArgument(std::vector<FieldViolation>{
        {"backend", "unknown backend \"" + options.backend + "\": local or slurm"}});
  }
  Result<std::string> text =
      options.slurm_config.empty()
          ? std::string()
          : ReadOptionFile(options.slurm_config, "slurm_config", "the Slurm configuration");
  if (!text.ok()) {
    return text.status();
  }
  Result<run::slurm::SlurmConfig> config = run::slurm::ParseSlurmConfig(*text, catalog);
  if (!config.ok()) {
    return config.status();
  }
  const char* path = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe): before any thread
  if (Result<std::string> sbatch =
          run::local::FindProgram("sbatch", path != nullptr ? path : run::local::kDefaultPath, ".");
      !sbatch.ok()) {
    return Status::FailedPrecondition(
        "--backend slurm needs Slurm's clients (sbatch, squeue, "
        "scancel, sacct) on PATH: " +
        sbatch.status().message());
  }
  return std::make_unique<run::slurm::SlurmBackend>(std::move(*config));
}

// The container runtime for jobs with imageUri: podman as detected on this machine, with the
// operator's options. INVALID_ARGUMENT for a bad option (a registry not on loopback, an
// unreadable credentials file, a malformed ulimit). Never fails for a machine without podman:
// its image jobs FAIL saying how to install it.
Result<std::unique_ptr<run::container::PodmanRuntime>> BuildContainerRuntime(
    const ServeOptions& options) {
  std::vector<FieldViolation> violations;
  for (const std::string& registry : options.insecure_registries) {
    if (Status loopback = run::container::CheckInsecureRegistry(registry); !loopback.ok()) {
      violations.push_back({"insecure_registry", loopback.message()});
    }
  }
  if (!options.registry_auth_file.empty() && !os::ReadFileText(options.registry_auth_file)) {
    violations.push_back({"registry_auth_file", fmt::format("cannot read the registry "
                                                            "credentials file {}",
                                                            options.registry_auth_file)});
  }
  for (const std::string& ulimit : options.container_ulimits) {
    const std::size_t equals = ulimit.find('=');
    const std::size_t colon = ulimit.find(':');
    if (equals == std::string::npos || equals == 0 || colon == std::string::npos ||
        colon < equals ||
        ulimit.find_first_not_of("0123456789:", equals + 1) != std::string::npos) {
      violations.push_back(
          {"container_ulimit", fmt::format("\"{}\" is not NAME=SOFT:HARD", ulimit)});
    }
  }
  if (options.containers != "podman" && options.containers != "host") {
    violations.push_back(
        {"containers", fmt::format("unknown value \"{}\": podman or host", options.containers)});
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  run::container::PodmanOptions podman{.podman = options.podman,
                                       .ulimits = options.container_ulimits,
                                       .auth_file = options.registry_auth_file,
                                       .insecure_registries = options.insecure_registries};
  return std::make_unique<run::container::PodmanRuntime>(run::container::DetectPodmanHost(podman),
                                                         podman.pull_timeout);
}

std::string DefaultPython() {
  return os::IsExecutable("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

// The address replicas use to reach this server's storage API (https when it serves TLS: their
// client then needs the server's CA).
std::string LoopbackUrl(const std::string& host, int port, bool tls) {
  const char* scheme = tls ? "https" : "http";
  if (host == "0.0.0.0" || host.empty()) {
    return fmt::format("{}://127.0.0.1:{}", scheme, port);
  }
  if (host.find(':') != std::string::npos) {
    return fmt::format("{}://[{}]:{}", scheme, host == "::" ? "::1" : host, port);
  }
  return fmt::format("{}://{}:{}", scheme, host, port);
}

}  // namespace trainyard::app
