#include "run/container/podman_runtime.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>

#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/text.h"
#include "run/command.h"

namespace trainyard::run::container {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kInstallHint =
    "install one (Debian: apt-get install podman runc catatonit) and restart trainyard serve";
constexpr std::chrono::seconds kShortCommand{30};
constexpr long kCgroup2Magic = 0x63677270;  // CGROUP2_SUPER_MAGIC
// podman 4.3 runs conmon and the OCI runtime with RLIMIT_NPROC 32768 (measured), and the
// runtime cannot raise a limit past its own: a larger nproc is refused.
constexpr rlim_t kPodmanNprocCeiling = 32768;

// The NVIDIA driver's user-space pieces a CUDA program inside needs (data, not code).
constexpr std::array<std::string_view, 6> kDriverLibraries = {
    "libcuda.so.1",        "libnvidia-ml.so.1",    "libnvidia-ptxjitcompiler.so.1",
    "libnvidia-nvvm.so.4", "libcudadebugger.so.1", "libnvidia-gpucomp.so"};
constexpr std::array<std::string_view, 4> kControlDevices = {
    "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset"};
// Where the driver's libraries are looked for after the server's LD_LIBRARY_PATH: the
// distributions' directories, then where NVIDIA's container images and GPU VMs mount the driver.
constexpr std::array<std::string_view, 5> kLibraryDirs = {"/usr/lib/x86_64-linux-gnu", "/usr/lib64",
                                                          "/usr/lib/aarch64-linux-gnu", "/usr/lib",
                                                          "/usr/local/nvidia/lib64"};
constexpr std::array<std::string_view, 3> kSbinDirs = {"/usr/local/sbin", "/usr/sbin", "/sbin"};
constexpr std::array<std::string_view, 2> kCdiDirs = {"/etc/cdi", "/var/run/cdi"};
constexpr std::array<std::string_view, 2> kCatatonit = {"/usr/libexec/podman/catatonit",
                                                        "/usr/bin/catatonit"};

bool Exists(const std::string& path) {
  std::error_code error;
  return fs::exists(path, error);
}

// The directories a colon-separated variable names (PATH, LD_LIBRARY_PATH), empty entries skipped.
std::vector<std::string> DirsIn(const char* variable) {
  const char* value = std::getenv(variable);  // NOLINT(concurrency-mt-unsafe): read at start
  std::vector<std::string> dirs;
  const std::string_view text = value == nullptr ? "" : value;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(':', start), text.size());
    if (end > start) {
      dirs.emplace_back(text.substr(start, end - start));
    }
    start = end + 1;
  }
  return dirs;
}

// `name` on PATH (or the sbin directories root's PATH has), "" when absent.
std::string FindOnPath(std::string_view name) {
  std::vector<std::string> dirs = DirsIn("PATH");
  dirs.insert(dirs.end(), kSbinDirs.begin(), kSbinDirs.end());
  for (const std::string& dir : dirs) {
    std::string candidate = fmt::format("{}/{}", dir, name);
    if (access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return {};
}

bool CgroupV2Only() {
  struct statfs info {};
  return statfs("/sys/fs/cgroup", &info) == 0 && info.f_type == kCgroup2Magic;
}

std::vector<std::string> DetectedUlimits() {
  std::vector<std::string> ulimits;
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    ulimits.push_back(fmt::format("nofile={}:{}", files.rlim_cur, files.rlim_cur));
  }
  rlimit processes{};
  if (getrlimit(RLIMIT_NPROC, &processes) == 0) {
    const rlim_t limit = std::min(processes.rlim_cur, kPodmanNprocCeiling);
    ulimits.push_back(fmt::format("nproc={}:{}", limit, limit));
  }
  return ulimits;
}

bool HasNvidiaCdiSpec() {
  for (std::string_view dir : kCdiDirs) {
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
      std::ifstream in(entry.path());
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      if (text.find("nvidia.com/gpu") != std::string::npos) {
        return true;
      }
    }
  }
  return false;
}

void DetectGpus(PodmanHost& host) {
  if (HasNvidiaCdiSpec()) {
    host.gpu = GpuAccess::kCdi;
    return;
  }
  if (!Exists("/dev/nvidiactl")) {
    return;
  }
  host.gpu = GpuAccess::kDeviceNodes;
  for (std::string_view device : kControlDevices) {
    if (Exists(std::string(device))) {
      host.control_devices.emplace_back(device);
    }
  }
  std::vector<std::string> dirs = DirsIn("LD_LIBRARY_PATH");
  dirs.insert(dirs.end(), kLibraryDirs.begin(), kLibraryDirs.end());
  for (std::string_view library : kDriverLibraries) {
    for (const std::string& dir : dirs) {
      std::error_code error;
      const fs::path real = fs::canonical(fmt::format("{}/{}", dir, library), error);
      if (!error) {
        // Mounted under the name the loader looks for, whatever version the file has.
        host.driver_files.push_back({real.string(), std::string(library)});
        break;
      }
    }
  }
  if (std::string smi = FindOnPath("nvidia-smi"); !smi.empty()) {
    host.driver_binaries.push_back(std::move(smi));
  }
}

}  // namespace

PodmanHost DetectPodmanHost(const PodmanOptions& options) {
  PodmanHost host;
  host.podman = options.podman.empty() ? FindOnPath("podman") : options.podman;
  if (!CgroupV2Only()) {
    // crun refuses cgroup v1 and hybrid hierarchies ("cgroups in hybrid mode not supported").
    host.runtime = FindOnPath("runc");
    if (host.runtime.empty()) {
      host.missing =
          "this host's cgroups are v1 or hybrid, which needs the runc OCI runtime: install it "
          "(Debian: apt-get install runc) and restart trainyard serve";
    }
  }
  host.init = std::ranges::any_of(kCatatonit,
                                  [](std::string_view path) { return Exists(std::string(path)); });
  host.ulimits = options.ulimits.empty() ? DetectedUlimits() : options.ulimits;
  DetectGpus(host);
  host.auth_file = options.auth_file;
  host.insecure_registries = options.insecure_registries;
  return host;
}

Status CheckInsecureRegistry(const std::string& registry) {
  const std::size_t colon = registry.rfind(':');
  const std::string_view host = std::string_view(registry).substr(
      0, colon == std::string::npos || registry.ends_with(']') ? registry.size() : colon);
  if (host == "localhost" || host == "[::1]" || host.starts_with("127.")) {
    return {};
  }
  return Status::InvalidArgument(fmt::format(
      "--insecure-registry {}: only registries on loopback (127.0.0.1:PORT, localhost:PORT, "
      "[::1]:PORT) may be used over plain HTTP",
      registry));
}

PodmanRuntime::PodmanRuntime(PodmanHost host, std::chrono::seconds pull_timeout)
    : host_(std::move(host)), pull_timeout_(pull_timeout) {}

Status PodmanRuntime::Available() const {
  if (host_.podman.empty()) {
    return Status::FailedPrecondition(
        fmt::format("This job runs container images, but this machine has no container engine: {}.",
                    kInstallHint));
  }
  if (!host_.missing.empty()) {
    return Status::FailedPrecondition(
        fmt::format("This job runs container images, but {}.", host_.missing));
  }
  return {};
}

std::vector<std::string> PodmanRuntime::RunCommand(
    const ContainerSpec& spec, const std::vector<std::pair<std::string, std::string>>& env) const {
  return container::RunCommand(host_, spec, env);
}

void PodmanRuntime::Kill(const std::string& name, int signal) {
  // SIGKILL is the end: the container goes too, whatever state it is in.
  (void)run::RunCommand(
      signal == SIGKILL ? RemoveCommand(host_, name) : KillCommand(host_, name, signal), "",
      kShortCommand);
}

Status PodmanRuntime::Pull(const std::string& image, const Progress& progress) {
  TY_RETURN_IF_ERROR(Available());
  bool known = false;
  {
    std::lock_guard lock(mu_);
    known = present_.contains(image);
  }
  if (!known) {
    Result<CommandResult> exists = run::RunCommand(ExistsCommand(host_, image), "", kShortCommand);
    if (!exists.ok()) {
      return exists.status();
    }
    known = exists->status.Succeeded();
  }
  if (known) {
    Remember(image);
    progress(fmt::format("Using the local image {}.", image));
    return {};
  }
  progress(fmt::format("Pulling image {}.", image));
  int layers = 0;
  Result<CommandResult> pulled =
      run::RunCommand(PullCommand(host_, image), "", pull_timeout_, std::size_t{1} << 20,
                      [&](std::string_view line) {
                        line = TrimWhitespace(line);
                        if (line.starts_with("Copying blob")) {
                          ++layers;
                        }
                        // Progress lines only; podman prints the image id alone last.
                        if (!line.empty() && line.find(' ') != std::string_view::npos) {
                          progress(line);
                        }
                      });
  if (!pulled.ok()) {
    return pulled.status().code() == Code::kDeadlineExceeded
               ? Status::DeadlineExceeded(
                     fmt::format("Pulling the image {} did not finish within {} s.", image,
                                 pull_timeout_.count()))
               : pulled.status();
  }
  if (!pulled->status.Succeeded()) {
    return Status::FailedPrecondition(fmt::format("The image {} could not be pulled: {}", image,
                                                  PullError(pulled->err + pulled->out)));
  }
  Result<CommandResult> size = run::RunCommand(
      {host_.podman, "image", "inspect", "--format", "{{.Size}}", image}, "", kShortCommand);
  const std::string bytes = size.ok() ? std::string(TrimWhitespace(size->out)) : "";
  progress(fmt::format("Pulled image {} ({} layer{}{}).", image, layers, layers == 1 ? "" : "s",
                       bytes.empty() ? "" : ", " + bytes + " bytes"));
  Remember(image);
  return {};
}

void PodmanRuntime::Remember(const std::string& image) {
  std::lock_guard lock(mu_);
  present_.insert(image);
}

}  // namespace trainyard::run::container
