// TaskLayoutFromEnv and ParseDeviceList: a task's place in its Slurm job step.
#include "run/slurm/task_env.h"

#include <charconv>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "run/slurm/hostlist.h"

namespace trainyard::run::slurm {
namespace {

// A whole decimal number in 0..INT_MAX, no sign, nothing around it.
std::optional<int> ParseNonNegative(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text.front() == '-' || ec != std::errc() ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

Status BadVariable(std::string name, std::string description) {
  return Status::InvalidArgument({FieldViolation{std::move(name), std::move(description)}});
}

Result<std::string> Require(const GetEnv& getenv, const std::string& name) {
  std::optional<std::string> value = getenv(name);
  if (!value) {
    return BadVariable(name, "is not set; Slurm sets it in every task of a job step");
  }
  return std::move(*value);
}

Result<int> RequireNumber(const GetEnv& getenv, const std::string& name, int min) {
  Result<std::string> text = Require(getenv, name);
  if (!text.ok()) {
    return text.status();
  }
  const std::optional<int> value = ParseNonNegative(*text);
  if (!value || *value < min) {
    return BadVariable(
        name, fmt::format("must be a whole number of at least {}; got \"{}\"", min, *text));
  }
  return *value;
}

// The nodes of one component's tasks, task i on the i-th node of the list.
Result<std::vector<std::string>> ComponentNodes(const GetEnv& getenv, const std::string& nodelist,
                                                const std::string& ntasks) {
  Result<int> tasks = RequireNumber(getenv, ntasks, 1);
  if (!tasks.ok()) {
    return tasks.status();
  }
  Result<std::string> list = Require(getenv, nodelist);
  if (!list.ok()) {
    return list.status();
  }
  Result<std::vector<std::string>> nodes = ExpandHostlist(*list);
  if (!nodes.ok()) {
    return BadVariable(nodelist, nodes.status().message());
  }
  if (nodes->size() < static_cast<std::size_t>(*tasks)) {
    return BadVariable(nodelist,
                       fmt::format("names {} nodes for the {} tasks of {} (one task per node)",
                                   nodes->size(), *tasks, ntasks));
  }
  nodes->resize(static_cast<std::size_t>(*tasks));
  return nodes;
}

}  // namespace

int TaskLayout::TaskCount() const {
  int count = 0;
  for (const std::vector<std::string>& nodes : component_nodes) {
    count += static_cast<int>(nodes.size());
  }
  return count;
}

Result<TaskLayout> TaskLayoutFromEnv(const GetEnv& getenv) {
  if (!getenv("SLURM_PROCID")) {
    return Status::FailedPrecondition("not inside a Slurm job step: SLURM_PROCID is not set");
  }
  TaskLayout layout;
  Result<int> procid = RequireNumber(getenv, "SLURM_PROCID", 0);
  if (!procid.ok()) {
    return procid.status();
  }
  layout.procid = *procid;
  if (getenv("SLURM_HET_SIZE")) {
    Result<int> size = RequireNumber(getenv, "SLURM_HET_SIZE", 1);
    if (!size.ok()) {
      return size.status();
    }
    // Each component needs two variables, so a bogus huge size fails at the first missing one.
    for (int g = 0; g < *size; ++g) {
      Result<std::vector<std::string>> nodes =
          ComponentNodes(getenv, fmt::format("SLURM_JOB_NODELIST_HET_GROUP_{}", g),
                         fmt::format("SLURM_NTASKS_HET_GROUP_{}", g));
      if (!nodes.ok()) {
        return nodes.status();
      }
      if (layout.TaskCount() > std::numeric_limits<int>::max() - static_cast<int>(nodes->size())) {
        return BadVariable("SLURM_HET_SIZE", "the components' task counts do not fit an int");
      }
      layout.component_nodes.push_back(std::move(*nodes));
    }
  } else {
    Result<std::vector<std::string>> nodes =
        ComponentNodes(getenv, "SLURM_JOB_NODELIST", "SLURM_NTASKS");
    if (!nodes.ok()) {
      return nodes.status();
    }
    layout.component_nodes.push_back(std::move(*nodes));
  }
  if (layout.procid >= layout.TaskCount()) {
    return BadVariable("SLURM_PROCID", fmt::format("is {}, but the step has {} tasks",
                                                   layout.procid, layout.TaskCount()));
  }
  return layout;
}

Result<std::vector<int>> ParseDeviceList(std::string_view value) {
  std::vector<int> devices;
  if (value.empty()) {
    return devices;
  }
  while (true) {
    const std::size_t comma = value.find(',');
    const std::string_view entry = value.substr(0, comma);
    const std::optional<int> device = ParseNonNegative(entry);
    if (!device) {
      return Status::InvalidArgument(
          {FieldViolation{"CUDA_VISIBLE_DEVICES",
                          fmt::format("\"{}\" is not a device index (a whole number)", entry)}});
    }
    devices.push_back(*device);
    if (comma == std::string_view::npos) {
      return devices;
    }
    value.remove_prefix(comma + 1);
  }
}

}  // namespace trainyard::run::slurm
