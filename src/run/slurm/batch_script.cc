// RenderBatchScript: a job as one heterogeneous sbatch script.
#include "run/slurm/batch_script.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "run/slurm/violations.h"

namespace trainyard::run::slurm {
namespace {

using internal::Violations;

// sbatch splits `#SBATCH` lines into words, and a line ends the option.
bool HasSpaceOrNul(std::string_view text) {
  return std::ranges::any_of(
      text, [](char c) { return c == ' ' || (c >= '\t' && c <= '\r') || c == '\0'; });
}

void CheckPath(std::string_view path, const char* field, Violations& out) {
  if (!path.starts_with('/') || HasSpaceOrNul(path)) {
    out.Add(field, fmt::format("must be an absolute path without whitespace; got \"{}\"", path));
  }
}

void CheckRequest(const ClusterJobRequest& request, const SlurmConfig& config, Violations& out) {
  if (!IsSlurmName(request.name)) {
    out.Add("name", fmt::format("must be a job name of [A-Za-z0-9_.-]; got \"{}\"", request.name));
  }
  if (request.components.empty()) {
    out.Add("components", "must hold at least one component");
  }
  for (std::size_t i = 0; i < request.components.size(); ++i) {
    const ComponentRequest& component = request.components[i];
    const std::string path = fmt::format("components[{}]", i);
    if (component.tasks < 1) {
      out.Add(path + ".tasks", fmt::format("must be at least 1; got {}", component.tasks));
    }
    if (component.cpus_per_task < 1) {
      out.Add(path + ".cpus_per_task",
              fmt::format("must be at least 1; got {}", component.cpus_per_task));
    }
    if (component.memory_mib < 0) {
      out.Add(path + ".memory_mib",
              fmt::format("must not be negative; got {}", component.memory_mib));
    }
    if (component.accelerator_count < 0) {
      out.Add(path + ".accelerator_count",
              fmt::format("must not be negative; got {}", component.accelerator_count));
    }
  }
  if (request.task_command.empty()) {
    out.Add("task_command", "must not be empty");
  }
  for (std::size_t i = 0; i < request.task_command.size(); ++i) {
    if (request.task_command[i].find('\0') != std::string::npos) {
      out.Add(fmt::format("task_command[{}]", i), "holds a NUL character");
    }
  }
  CheckPath(request.working_dir, "working_dir", out);
  CheckPath(request.output_path, "output_path", out);
  if (request.time_limit && request.time_limit->count() < 1) {
    out.Add("time_limit",
            fmt::format("must be at least 1 second; got {}s", request.time_limit->count()));
  }
  if (const std::string partition = PartitionFor(request.priority, config);
      !partition.empty() && !IsSlurmName(partition)) {
    out.Add("partition",
            fmt::format("the configured partition \"{}\" is not a Slurm name", partition));
  }
  for (std::size_t i = 0; i < config.sbatch_options.size(); ++i) {
    if (HasSpaceOrNul(config.sbatch_options[i])) {
      out.Add(fmt::format("sbatch_options[{}]", i),
              fmt::format("\"{}\" holds whitespace", config.sbatch_options[i]));
    }
  }
}

// One word for the shell: '…', each ' written as '\''.
std::string ShellQuote(std::string_view word) {
  std::string quoted = "'";
  for (const char c : word) {
    quoted += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
  }
  quoted += '\'';
  return quoted;
}

}  // namespace

Result<std::string> RenderBatchScript(const ClusterJobRequest& request, const SlurmConfig& config) {
  Violations out;
  CheckRequest(request, config, out);
  if (!out.list.empty()) {
    return Status::InvalidArgument(std::move(out.list));
  }
  std::string script = "#!/bin/bash\n";
  const auto option = [&script](std::string_view text) {
    script += fmt::format("#SBATCH {}\n", text);
  };
  option(fmt::format("--job-name={}", request.name));
  option(fmt::format("--output={}", request.output_path));
  option("--open-mode=append");  // a requeued run adds to the first one's log
                                 // (docs/reference/slurm.md §6)
  option(fmt::format("--chdir={}", request.working_dir));
  option(config.requeue ? "--requeue" : "--no-requeue");
  if (request.time_limit) {
    option(fmt::format("--time={}", (request.time_limit->count() + 59) / 60));
  }
  for (const std::string& extra : config.sbatch_options) {
    option(extra);
  }
  // Unlike the options above, --partition does not carry over to the next component (seen on
  // 22.05: a het job's component 1 went to the default partition), so each one names it.
  const std::string partition = PartitionFor(request.priority, config);
  std::vector<std::string> groups;
  for (std::size_t i = 0; i < request.components.size(); ++i) {
    const ComponentRequest& component = request.components[i];
    if (i > 0) {
      option("hetjob");
    }
    if (!partition.empty()) {
      option(fmt::format("--partition={}", partition));
    }
    option(fmt::format("--nodes={}", component.tasks));
    option(fmt::format("--ntasks={}", component.tasks));
    option("--ntasks-per-node=1");
    option(fmt::format("--cpus-per-task={}", component.cpus_per_task));
    if (component.memory_mib > 0) {
      option(fmt::format("--mem={}M", component.memory_mib));
    }
    if (component.accelerator_count > 0) {
      option(fmt::format("--gres={}",
                         GresFor(component.accelerator, component.accelerator_count, config)));
    }
    groups.push_back(std::to_string(i));
  }
  script += "exec srun";
  if (groups.size() > 1) {
    script += fmt::format(" --het-group={}", fmt::join(groups, ","));
  }
  script += " --kill-on-bad-exit=0";
  for (const std::string& word : request.task_command) {
    script += ' ';
    script += ShellQuote(word);
  }
  script += '\n';
  return script;
}

std::string GresFor(std::string_view accelerator, int accelerator_count,
                    const SlurmConfig& config) {
  const auto type = config.gres_types.find(accelerator);
  if (type == config.gres_types.end()) {
    return fmt::format("gpu:{}", accelerator_count);
  }
  return fmt::format("gpu:{}:{}", type->second, accelerator_count);
}

}  // namespace trainyard::run::slurm
