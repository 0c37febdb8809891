#include "run/container/podman_command.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/text.h"

namespace trainyard::run::container {
namespace {

using Environment = std::vector<std::pair<std::string, std::string>>;

void Add(std::vector<std::string>& argv, std::string_view flag, std::string value) {
  argv.emplace_back(flag);
  argv.push_back(std::move(value));
}

void SetVariable(Environment& env, std::string_view name, std::string value) {
  auto found = std::ranges::find(env, name, &std::pair<std::string, std::string>::first);
  if (found == env.end()) {
    env.emplace_back(name, std::move(value));
  } else {
    found->second = std::move(value);
  }
}

bool MountsDriver(const PodmanHost& host, const ContainerSpec& spec) {
  return host.gpu == GpuAccess::kDeviceNodes && !spec.device_indices.empty();
}

void AddDevices(std::vector<std::string>& argv, const PodmanHost& host, const ContainerSpec& spec) {
  if (spec.device_indices.empty()) {
    return;
  }
  if (host.gpu == GpuAccess::kCdi) {
    for (int index : spec.device_indices) {
      Add(argv, "--device", fmt::format("nvidia.com/gpu={}", index));
    }
    return;
  }
  // kDeviceNodes; kNone has no GPU to give, and placement gives none there.
  for (int index : spec.device_indices) {
    Add(argv, "--device", fmt::format("/dev/nvidia{}", index));
  }
  for (const std::string& device : host.control_devices) {
    Add(argv, "--device", device);
  }
  for (const DriverFile& file : host.driver_files) {
    Add(argv, "--volume", fmt::format("{}:{}/{}:ro", file.path, kDriverLibraryDir, file.name));
  }
  for (const std::string& binary : host.driver_binaries) {
    Add(argv, "--volume", fmt::format("{}:{}:ro", binary, binary));
  }
}

}  // namespace

Environment ContainerEnvironment(const PodmanHost& host, const ContainerSpec& spec,
                                 Environment env) {
  const auto visible =
      std::ranges::find(env, "CUDA_VISIBLE_DEVICES", &std::pair<std::string, std::string>::first);
  if (visible != env.end() && !visible->second.empty()) {
    std::vector<int> inside(spec.device_indices.size());
    for (std::size_t i = 0; i < inside.size(); ++i) {
      inside[i] = static_cast<int>(i);
    }
    visible->second = fmt::format("{}", fmt::join(inside, ","));
  }
  if (MountsDriver(host, spec)) {
    SetVariable(env, "LD_LIBRARY_PATH", std::string(kDriverLibraryDir));
  }
  return env;
}

std::vector<std::string> RunCommand(const PodmanHost& host, const ContainerSpec& spec,
                                    const Environment& env) {
  std::vector<std::string> argv = {host.podman, "run", "--rm", "--replace"};
  Add(argv, "--name", spec.name);
  for (const auto& [key, value] : spec.labels) {
    Add(argv, "--label", fmt::format("{}={}", key, value));
  }
  Add(argv, "--pull", "never");
  Add(argv, "--network", "host");
  for (const auto& [name, address] : spec.hosts) {
    Add(argv, "--add-host", fmt::format("{}:{}", name, address));
  }
  if (host.init) {
    argv.emplace_back("--init");
  }
  if (!host.runtime.empty()) {
    Add(argv, "--runtime", host.runtime);
  }
  for (const std::string& ulimit : host.ulimits) {
    Add(argv, "--ulimit", ulimit);
  }
  Add(argv, "--log-driver", "none");
  if (!spec.working_dir.empty()) {
    Add(argv, "--workdir", spec.working_dir);
  }
  if (!spec.user.empty()) {
    Add(argv, "--user", spec.user);
  }
  for (const auto& [name, value] : ContainerEnvironment(host, spec, env)) {
    Add(argv, "--env", fmt::format("{}={}", name, value));
  }
  for (const Mount& mount : spec.mounts) {
    Add(argv, "--volume",
        fmt::format("{}:{}{}", mount.source, mount.target, mount.read_only ? ":ro" : ""));
  }
  AddDevices(argv, host, spec);
  if (!spec.entrypoint.empty()) {
    Add(argv, "--entrypoint", nlohmann::json(spec.entrypoint).dump());
  }
  argv.push_back(spec.image);
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  return argv;
}

std::string RegistryOf(std::string_view image) {
  const std::size_t slash = image.find('/');
  if (slash == std::string_view::npos) {
    return {};
  }
  // As the Docker reference grammar: the first component is a registry when it has a '.' or a
  // ':' or is "localhost".
  const std::string_view first = image.substr(0, slash);
  if (first.find_first_of(".:") == std::string_view::npos && first != "localhost") {
    return {};
  }
  return std::string(first);
}

std::vector<std::string> ExistsCommand(const PodmanHost& host, const std::string& image) {
  return {host.podman, "image", "exists", image};
}

std::vector<std::string> PullCommand(const PodmanHost& host, const std::string& image) {
  std::vector<std::string> argv = {host.podman, "pull"};
  if (std::ranges::find(host.insecure_registries, RegistryOf(image)) !=
      host.insecure_registries.end()) {
    argv.emplace_back("--tls-verify=false");
  }
  if (!host.auth_file.empty()) {
    Add(argv, "--authfile", host.auth_file);
  }
  argv.push_back(image);
  return argv;
}

std::vector<std::string> KillCommand(const PodmanHost& host, const std::string& name, int signal) {
  return {host.podman, "kill", "--signal", std::to_string(signal), name};
}

std::vector<std::string> RemoveCommand(const PodmanHost& host, const std::string& name) {
  return {host.podman, "rm", "-f", "--time", "0", "--ignore", name};
}

std::string PullError(std::string_view output) {
  std::string_view last;
  std::string_view error;
  while (!output.empty()) {
    const std::size_t end = output.find('\n');
    const std::string_view line = TrimWhitespace(output.substr(0, end));
    output = end == std::string_view::npos ? std::string_view() : output.substr(end + 1);
    if (line.empty()) {
      continue;
    }
    last = line;
    if (line.starts_with("Error: ")) {
      error = line.substr(7);
    }
  }
  return std::string(error.empty() ? last : error);
}

}  // namespace trainyard::run::container
