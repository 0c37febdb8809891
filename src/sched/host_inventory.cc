#include "sched/host_inventory.h"

#include <charconv>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/text.h"
#include "os/host.h"
#include "sched/node_labels.h"
#include "sched/program.h"

namespace trainyard::sched {
namespace {

// nvidia-smi answers within a second on a healthy box; a wedged driver can hang it forever.
constexpr int kNvidiaSmiIdleTimeoutMs = 30'000;
// nvidia-smi's exit status for "No devices were found" (a driver with no GPU to show).
constexpr int kNvidiaSmiNoDevices = 6;

template <typename T>
std::optional<T> ParseNumber(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

// The last non-blank line of `text`.
std::string_view LastLine(std::string_view text) {
  text = TrimWhitespace(text);
  const std::size_t newline = text.find_last_of('\n');
  return newline == std::string_view::npos ? text : TrimWhitespace(text.substr(newline + 1));
}

Result<std::int64_t> DetectMemoryMib() {
  std::ifstream file("/proc/meminfo");
  std::ostringstream text;
  text << file.rdbuf();
  if (file && !text.str().empty()) {
    return ParseMemTotalMib(text.str());
  }
  Result<std::int64_t> bytes = os::PhysicalMemoryBytes();
  if (!bytes.ok()) {
    return Status::Unavailable("cannot read the machine's memory: no /proc/meminfo or sysconf");
  }
  return *bytes / (std::int64_t{1024} * 1024);
}

Result<std::vector<Device>> DetectGpus(const catalog::Catalog& catalog, const std::string& smi) {
  Result<internal::ProgramOutput> run = internal::RunProgram(
      {smi, "--query-gpu=index,name", "--format=csv,noheader"}, kNvidiaSmiIdleTimeoutMs);
  if (!run.ok()) {
    if (run.status().code() == Code::kNotFound) {
      return std::vector<Device>{};  // no NVIDIA driver tools: a machine without GPUs
    }
    return run.status();
  }
  if (run->exit_code == kNvidiaSmiNoDevices &&
      run->out.find("No devices were found") != std::string::npos) {
    return std::vector<Device>{};
  }
  if (run->exit_code != 0) {
    const std::string_view why =
        LastLine(run->err).empty() ? LastLine(run->out) : LastLine(run->err);
    return Status::Unavailable(
        fmt::format("{} exited with status {}: {}", smi, run->exit_code, why));
  }
  return ParseNvidiaSmiGpus(run->out, catalog);
}

}  // namespace

Result<std::vector<Device>> ParseNvidiaSmiGpus(std::string_view output,
                                               const catalog::Catalog& catalog) {
  std::vector<Device> devices;
  std::set<int> indices;
  int line_number = 0;
  while (!output.empty()) {
    const std::size_t newline = output.find('\n');
    const std::string_view raw = output.substr(0, newline);
    output.remove_prefix(newline == std::string_view::npos ? output.size() : newline + 1);
    ++line_number;
    const std::string_view line = TrimWhitespace(raw);
    if (line.empty()) {
      continue;
    }
    const std::size_t comma = line.find(',');
    const std::optional<int> index = comma == std::string_view::npos
                                         ? std::nullopt
                                         : ParseNumber<int>(TrimWhitespace(line.substr(0, comma)));
    const std::string_view name = comma == std::string_view::npos
                                      ? std::string_view{}
                                      : TrimWhitespace(line.substr(comma + 1));
    if (!index || name.empty()) {
      return Status::InvalidArgument(fmt::format(
          "nvidia-smi output line {} is not \"index, name\": \"{}\"", line_number, line));
    }
    if (!indices.insert(*index).second) {
      return Status::InvalidArgument(
          fmt::format("nvidia-smi output line {} repeats GPU index {}", line_number, *index));
    }
    const catalog::Accelerator* accelerator = catalog.FindAcceleratorByDeviceName(name);
    devices.push_back(Device{.index = *index,
                             .accelerator = accelerator == nullptr ? "" : accelerator->name,
                             .model = std::string(name),
                             .emulated = false});
  }
  return devices;
}

Result<std::int64_t> ParseMemTotalMib(std::string_view proc_meminfo) {
  constexpr std::string_view kKey = "MemTotal:";
  std::size_t at = 0;
  while (at < proc_meminfo.size()) {
    const std::size_t newline = proc_meminfo.find('\n', at);
    const std::string_view line = proc_meminfo.substr(
        at, newline == std::string_view::npos ? std::string_view::npos : newline - at);
    at = newline == std::string_view::npos ? proc_meminfo.size() : newline + 1;
    if (!line.starts_with(kKey)) {
      continue;
    }
    std::string_view value = TrimWhitespace(line.substr(kKey.size()));
    if (value.ends_with("kB")) {
      value = TrimWhitespace(value.substr(0, value.size() - 2));
    }
    if (const std::optional<std::int64_t> kib = ParseNumber<std::int64_t>(value)) {
      return *kib / 1024;
    }
    return Status::InvalidArgument(
        fmt::format("/proc/meminfo: cannot read \"{}\"", TrimWhitespace(line)));
  }
  return Status::InvalidArgument("/proc/meminfo has no MemTotal line");
}

Result<Node> DetectLocalNode(const catalog::Catalog& catalog, const DetectOptions& options) {
  Result<std::int64_t> memory = DetectMemoryMib();
  if (!memory.ok()) {
    return memory.status();
  }
  Result<std::vector<Device>> gpus = DetectGpus(catalog, options.nvidia_smi);
  if (!gpus.ok()) {
    return gpus.status();
  }
  Node node{.name = "localhost",
            .cpus = os::UsableCpuCount(),
            .memory_mib = *memory,
            .devices = std::move(*gpus)};
  return WithWellKnownLabels(std::move(node), catalog, kBuildArch);
}

}  // namespace trainyard::sched
