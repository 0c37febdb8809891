// What a replica is started with must fit one execve(2): its command line and environment, from
// every API (ml v1's fields as they are; a Vertex worker pool's or a TFJob container's env, and a
// Python package pool's args, in the role's extras, named as validate.h says). A job that breaks
// these is refused at create, naming the field, instead of failing at exec ("Argument list too
// long") or reaching its program cut at a NUL.
#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "validate/rules.h"

namespace trainyard::validate {
namespace {

// What one execve(2) can carry on Linux (fs/exec.c; execve(2), "Limits on size of arguments and
// environment"), and the share of it a request may take.
struct ExecLimits {
  // MAX_ARG_STRLEN (32 pages): one argument, or one NAME=value, with its terminating NUL.
  std::size_t string_bytes;
  // argv and envp together may take a quarter of the stack limit, 2 MiB under the usual 8 MiB,
  // each string costing its bytes, its NUL and its pointer. A request gets half of that:
  // trainyard adds its own arguments and variables (TF_CONFIG and CLUSTER_SPEC name every
  // replica, paths, a trial's hyperparameters), and so do the replica supervisor and podman.
  std::size_t total_bytes;
  std::size_t pointer_bytes;
};
constexpr ExecLimits kExecLimits{.string_bytes = std::size_t{128} << 10,
                                 .total_bytes = std::size_t{1} << 20,
                                 .pointer_bytes = sizeof(char*)};

using Environment = std::vector<std::pair<std::string, std::string>>;

bool HasNul(std::string_view text) {
  return text.find('\0') != std::string_view::npos;
}

// What one string costs execve: its bytes, its NUL and its pointer.
std::size_t Cost(std::size_t text_bytes) {
  return text_bytes + 1 + kExecLimits.pointer_bytes;
}

std::size_t ListCost(const std::vector<std::string>& list) {
  std::size_t bytes = 0;
  for (const std::string& item : list) {
    bytes += Cost(item.size());
  }
  return bytes;
}

std::size_t EnvironmentCost(const Environment& env) {
  std::size_t bytes = 0;
  for (const auto& [name, value] : env) {
    bytes += Cost(name.size() + 1 + value.size());  // NAME=value
  }
  return bytes;
}

std::string TooLong(std::string_view what, std::size_t bytes) {
  return fmt::format(
      "{} is {} bytes; one may be at most {} bytes (Linux's MAX_ARG_STRLEN, 128 KiB "
      "with its terminating NUL)",
      what, bytes, kExecLimits.string_bytes - 1);
}

// The elements of one list that break one rule: the first is reported, with how many more do,
// so that a million bad elements make one violation, not a million.
class Offenders {
 public:
  explicit Offenders(FieldPath list, std::string_view leaf = "")
      : list_(std::move(list)), leaf_(leaf) {}

  void Note(std::size_t index, std::string description) {
    if (count_++ == 0) {
      first_ = index;
      description_ = std::move(description);
    }
  }

  void Report(Violations& out) && {
    if (count_ == 0) {
      return;
    }
    if (count_ > 1) {
      description_ += fmt::format(" ({} more elements of {} do too)", count_ - 1, list_.leaf());
    }
    const FieldPath at = list_.Index(first_);
    out.Add(leaf_.empty() ? at : at.Child(leaf_), std::move(description_));
  }

 private:
  FieldPath list_;
  std::string_view leaf_;
  std::size_t count_ = 0;
  std::size_t first_ = 0;
  std::string description_;
};

// Each argument: no NUL (a C string ends there), at most MAX_ARG_STRLEN.
void CheckArguments(const FieldPath& path, const std::vector<std::string>& list, Violations& out) {
  Offenders nul(path);
  Offenders long_ones(path);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (HasNul(list[i])) {
      nul.Note(i,
               "contains a NUL byte: arguments are C strings, so the program would get it cut "
               "at the NUL");
    }
    if (list[i].size() >= kExecLimits.string_bytes) {
      long_ones.Note(i, TooLong("the argument", list[i].size()));
    }
  }
  std::move(nul).Report(out);
  std::move(long_ones).Report(out);
}

// Each variable: a name that is not empty and holds neither '=' nor NUL (the environment is
// NAME=value C strings), a value without NUL, NAME=value at most MAX_ARG_STRLEN.
void CheckEnvironment(const FieldPath& path, const Environment& env, Violations& out) {
  Offenders no_name(path, "name");
  Offenders equals(path, "name");
  Offenders nul_name(path, "name");
  Offenders nul_value(path, "value");
  Offenders long_ones(path);
  for (std::size_t i = 0; i < env.size(); ++i) {
    const auto& [name, value] = env[i];
    if (name.empty()) {
      no_name.Note(i, "is required: an environment variable needs a name");
    }
    if (name.find('=') != std::string::npos) {
      equals.Note(i,
                  "contains '=', which ends a variable's name (the environment holds NAME=value)");
    }
    if (HasNul(name)) {
      nul_name.Note(i,
                    "contains a NUL byte, which ends a variable (the environment holds C "
                    "strings)");
    }
    if (HasNul(value)) {
      nul_value.Note(i,
                     "contains a NUL byte: the environment holds C strings, so the program "
                     "would get the value cut at the NUL");
    }
    if (const std::size_t bytes = name.size() + 1 + value.size();
        bytes >= kExecLimits.string_bytes) {
      long_ones.Note(i, TooLong("NAME=value", bytes));
    }
  }
  std::move(no_name).Report(out);
  std::move(equals).Report(out);
  std::move(nul_name).Report(out);
  std::move(nul_value).Report(out);
  std::move(long_ones).Report(out);
}

const model::RoleExtras* ExtrasOf(const JobContext& job, Role role) {
  if (job.extras == nullptr) {
    return nullptr;
  }
  switch (role) {
    case Role::kMaster:
      return &job.extras->master;
    case Role::kWorker:
      return &job.extras->worker;
    case Role::kParameterServer:
      return &job.extras->parameter_server;
    case Role::kEvaluator:
      return &job.extras->evaluator;
  }
  return nullptr;
}

bool RunsContainer(const JobContext& job, const ReplicaView& view) {
  return !EffectiveImage(view, job.input).empty();
}

// validate.h: a role's environment is `containerEnv` when it runs a container, `env` when it runs
// a process.
FieldPath EnvironmentPath(const JobContext& job, const ReplicaView& view) {
  return view.config_path.Child(RunsContainer(job, view) ? "containerEnv" : "env");
}

// One list a replica is started with, and what it costs execve.
struct Part {
  FieldPath path;
  std::size_t bytes = 0;
};

// docs/reference/ai-platform-training.md §2.3 (as plan/replicas.cc applies it): a replica without
// an imageUri of its own runs the master's image, and then the master's containerCommand or
// containerArgs where it sets none.
Part ContainerList(const JobContext& job, const ReplicaView& view,
                   std::vector<std::string> model::ReplicaConfig::*list, std::string_view name) {
  const ReplicaView& master = job.views[0];
  const bool own = view.role == Role::kMaster || master.config == nullptr ||
                   (view.config != nullptr &&
                    (!view.config->image_uri.empty() || !(view.config->*list).empty()));
  const ReplicaView& from = own ? view : master;
  return {from.config_path.Child(name), from.config == nullptr ? 0 : ListCost(from.config->*list)};
}

// The command line and environment of one of the role's replicas, within kExecLimits.total_bytes;
// reported at the list that takes the most. `reported` keeps a list shared by several roles (the
// master's args that a worker inherits, trainingInput.args) from being reported once per role.
void CheckTotal(const JobContext& job, const ReplicaView& view,
                std::set<std::pair<std::string, std::size_t>>& reported, Violations& out) {
  const model::RoleExtras* extras = ExtrasOf(job, view.role);
  std::vector<Part> parts;
  if (RunsContainer(job, view)) {
    parts.push_back(
        ContainerList(job, view, &model::ReplicaConfig::container_command, "containerCommand"));
    parts.push_back(
        ContainerList(job, view, &model::ReplicaConfig::container_args, "containerArgs"));
    parts.push_back({job.path.Child("args"), ListCost(job.input.args)});  // they follow
  } else if (extras != nullptr && extras->args.has_value()) {
    parts.push_back({view.config_path.Child("args"), ListCost(*extras->args)});
  } else {
    parts.push_back({job.path.Child("args"), ListCost(job.input.args)});
  }
  if (extras != nullptr) {
    parts.push_back({EnvironmentPath(job, view), EnvironmentCost(extras->env)});
  }
  std::size_t total = 0;
  for (const Part& part : parts) {
    total += part.bytes;
  }
  if (total <= kExecLimits.total_bytes) {
    return;
  }
  const Part& largest = *std::ranges::max_element(parts, {}, &Part::bytes);
  if (!reported.emplace(largest.path.str(), total).second) {
    return;
  }
  out.Add(largest.path,
          fmt::format("makes a replica's command line and environment {} bytes (each string "
                      "counting its bytes, its NUL and its {}-byte pointer); at most {} bytes "
                      "(1 MiB) are accepted: Linux starts no program whose arguments and "
                      "environment pass a quarter of its stack limit (2 MiB by default), and "
                      "trainyard keeps half of that for its own",
                      total, kExecLimits.pointer_bytes, kExecLimits.total_bytes));
}

}  // namespace

void CheckExecLimits(const JobContext& job, Violations& out) {
  CheckArguments(job.path.Child("args"), job.input.args, out);
  for (const ReplicaView& view : job.views) {
    if (view.config != nullptr) {
      CheckArguments(view.config_path.Child("containerCommand"), view.config->container_command,
                     out);
      CheckArguments(view.config_path.Child("containerArgs"), view.config->container_args, out);
    }
    if (const model::RoleExtras* extras = ExtrasOf(job, view.role)) {
      if (extras->args.has_value()) {
        CheckArguments(view.config_path.Child("args"), *extras->args, out);
      }
      CheckEnvironment(EnvironmentPath(job, view), extras->env, out);
    }
  }
  std::set<std::pair<std::string, std::size_t>> reported;
  for (const RunningReplica& replica : job.running) {
    CheckTotal(job, *replica.view, reported, out);
  }
}

}  // namespace trainyard::validate
