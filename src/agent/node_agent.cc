#include "agent/node_agent.h"

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "agent/batch_launch.h"
#include "control/job_layout.h"
#include "control/reconcile/replica_policy.h"
#include "control/replica_specs.h"
#include "control/run_record.h"
#include "control/service_log.h"
#include "os/file.h"
#include "os/process.h"
#include "plan/cluster_plan.h"
#include "plan/replicas.h"
#include "run/command.h"
#include "run/exit_file.h"
#include "run/local/process_launcher.h"
#include "run/local/supervisor_command.h"

namespace trainyard::agent {

using control::JobLayout;

namespace {

constexpr int kCannotStart = 127;

// The value of `key` ("NodeAddr") in one line of `scontrol -o show node`; "" when absent.
std::string_view FieldOf(std::string_view line, std::string_view key) {
  for (std::size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
    if ((at == 0 || line[at - 1] == ' ') && line.substr(at + key.size()).starts_with('=')) {
      const std::string_view rest = line.substr(at + key.size() + 1);
      return rest.substr(0, rest.find(' '));
    }
  }
  return {};
}

// The address every node of the step is reached at: the launch file's, else the NodeAddr one
// `scontrol show node` of all the others gives, else the node's name.
std::map<std::string, std::string, std::less<>> NodeAddresses(const run::slurm::TaskLayout& tasks,
                                                              const BatchLaunch& launch) {
  std::map<std::string, std::string, std::less<>> addresses;
  std::vector<std::string> unlisted;
  for (const std::vector<std::string>& nodes : tasks.component_nodes) {
    for (const std::string& node : nodes) {
      if (addresses.contains(node)) {
        continue;
      }
      const auto known = launch.node_addresses.find(node);
      addresses[node] = known != launch.node_addresses.end() ? known->second : node;
      if (known == launch.node_addresses.end()) {
        unlisted.push_back(node);
      }
    }
  }
  if (unlisted.empty()) {
    return addresses;
  }
  // One call for them all; a node Slurm does not know is left out of its answer.
  Result<run::CommandResult> shown = run::RunCommand(
      {"scontrol", "-o", "show", "node", fmt::format("{}", fmt::join(unlisted, ","))}, "",
      std::chrono::seconds(30));
  if (!shown.ok()) {
    return addresses;
  }
  std::string_view text = shown->out;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const auto node = addresses.find(FieldOf(line, "NodeName"));
    const std::string_view address = FieldOf(line, "NodeAddr");
    if (node != addresses.end() && !address.empty() &&
        std::ranges::find(unlisted, node->first) != unlisted.end()) {
      node->second = address;
    }
  }
  return addresses;
}

int ExitCodeOf(const ExitStatus& status) {
  return status.signaled ? 128 + status.signal : status.code;
}

// The replica shapes' role groups must be the step's components, in order and size.
Status CheckComponents(const std::vector<plan::ReplicaShape>& shapes,
                       const run::slurm::TaskLayout& tasks) {
  std::vector<int> groups;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (i == 0 || shapes[i].role != shapes[i - 1].role) {
      groups.push_back(0);
    }
    ++groups.back();
  }
  std::vector<int> components;
  for (const std::vector<std::string>& nodes : tasks.component_nodes) {
    components.push_back(static_cast<int>(nodes.size()));
  }
  if (groups != components) {
    return Status::FailedPrecondition(fmt::format(
        "The job step's components ({} with {} tasks) do not match the job's replicas ({} roles, "
        "{} replicas).",
        components.size(), tasks.TaskCount(), groups.size(), shapes.size()));
  }
  return Status();
}

// The restarts every task of the job has made so far, as their started files say (the job's
// backoff limit is shared by all of them).
int JobRestarts(const JobLayout& layout, const std::vector<plan::ReplicaShape>& shapes) {
  int restarts = 0;
  for (const plan::ReplicaShape& shape : shapes) {
    if (Result<TaskStarted> started =
            DecodeTaskStarted(os::ReadFileText(layout.started_path(shape.task_name)).value_or(""));
        started.ok()) {
      restarts += started->restarts;
    }
  }
  return restarts;
}

// Waits for the replica's exit, passing stop signals (blocked in this thread) on to its group.
class ReplicaWatch {
 public:
  void OnExit(ExitStatus status) {
    {
      std::lock_guard lock(mu_);
      exit_ = status;
    }
    cv_.notify_all();
  }

  // Waits until the replica exits (returns its status) or, when `deadline` is given, until then
  // (returns nullopt). A stop signal that arrives meanwhile is sent to `pid`'s group (when > 0)
  // and remembered.
  std::optional<ExitStatus> Wait(run::Launcher& launcher, int pid, std::optional<MonoTime> deadline,
                                 const Clock& clock) {
    while (true) {
      std::optional<ExitStatus> exit;
      {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return exit_.has_value(); });
        exit = std::exchange(exit_, std::nullopt);
      }
      // Checked after the exit too: scancel signals every process of the step, and the replica
      // may have been reaped before this thread looked.
      const int signal = os::TakeSignal(run::local::kStopSignals, std::chrono::milliseconds(0));
      if (signal > 0) {
        stopped_ = true;
        if (pid > 0 && !exit) {
          launcher.SignalGroup(pid, signal);
        }
      }
      if (exit) {
        // Killed by a stop signal: Slurm's (scancel, the time limit, preemption) reached the
        // replica before this process; not a crash to restart.
        stopped_ |= exit->signaled &&
                    std::find(run::local::kStopSignals.begin(), run::local::kStopSignals.end(),
                              exit->signal) != run::local::kStopSignals.end();
        return exit;
      }
      if (deadline && (clock.Monotonic() >= *deadline || stopped_)) {
        return std::nullopt;
      }
    }
  }

  bool stopped() const { return stopped_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<ExitStatus> exit_;
  bool stopped_ = false;
};

}  // namespace

int RunBatchTask(const std::string& launch_path, const run::slurm::GetEnv& getenv,
                 const catalog::Catalog& catalog, const Clock& clock,
                 const run::container::PodmanOptions& containers, bool containers_on_host) {
  // The stop signals are taken by ReplicaWatch (every thread started below inherits the mask).
  os::BlockSignals(run::local::kStopSignals);

  Result<BatchLaunch> launch = agent::ReadBatchLaunch(launch_path);
  if (!launch.ok()) {
    std::fprintf(stderr, "trainyard batch-task: %s\n", launch.status().message().c_str());
    return kCannotStart;
  }
  const JobLayout layout(launch->data_dir, launch->project, launch->job.job_id, launch->trial_id);
  Result<run::slurm::TaskLayout> tasks = run::slurm::TaskLayoutFromEnv(getenv);
  Result<std::vector<plan::ReplicaShape>> shapes = plan::JobReplicas(launch->job, catalog);
  Status problem = !tasks.ok() ? tasks.status() : shapes.status();
  if (problem.ok()) {
    problem = CheckComponents(*shapes, *tasks);
  }
  // Until the task knows its replica, a failure is recorded in the service log and as a task
  // named after its rank.
  std::string task_name = tasks.ok() ? fmt::format("task-{}", tasks->procid) : "task";
  auto give_up = [&](const Status& status) {
    const std::string message =
        fmt::format("The replica {} could not be started: {}", task_name, status.message());
    std::fprintf(stderr, "trainyard batch-task: %s\n", message.c_str());
    control::AppendServiceMessage(layout.service_log(), clock, true, message);
    (void)control::WriteFileAtomically(
        layout.exit_path(task_name),
        run::ExitFileText(ExitStatus{.code = kCannotStart}, clock.Now()));
    return kCannotStart;
  };
  if (!problem.ok()) {
    return give_up(problem);
  }
  const int me = tasks->procid;
  const plan::ReplicaShape& shape = (*shapes)[static_cast<std::size_t>(me)];
  task_name = shape.task_name;

  const std::map<std::string, std::string, std::less<>> addresses = NodeAddresses(*tasks, *launch);
  std::vector<plan::ReplicaPlacement> placements;
  std::string my_node;
  for (const std::vector<std::string>& nodes : tasks->component_nodes) {
    for (const std::string& node : nodes) {
      const int task = static_cast<int>(placements.size());
      plan::ReplicaPlacement placement{.host = addresses.at(node),
                                       .port = launch->first_port + task};
      if (task == me) {
        my_node = node;
        Result<std::vector<int>> devices =
            run::slurm::ParseDeviceList(getenv("CUDA_VISIBLE_DEVICES").value_or(""));
        if (!devices.ok()) {
          return give_up(devices.status());
        }
        placement.device_indices = std::move(*devices);
      }
      placements.push_back(std::move(placement));
    }
  }
  plan::PlanContext context = launch->context;
  context.pytorch_master_port = launch->first_port + tasks->TaskCount();
  context.containers_on_host = containers_on_host;
  Result<std::vector<Result<run::ProcessSpec>>> specs = control::BuildReplicaSpecs(
      launch->job, *shapes, placements, context,
      control::ReplicaFiles{.data_dir = launch->data_dir, .project = launch->project}, catalog);
  if (!specs.ok()) {
    return give_up(specs.status());
  }
  Result<run::ProcessSpec>& mine = (*specs)[static_cast<std::size_t>(me)];
  if (!mine.ok()) {
    return give_up(mine.status());
  }
  run::ProcessSpec spec = std::move(*mine);
  const std::string exit_path = spec.exit_path;
  spec.exit_path += ".attempt";  // the supervisor's; the executor watches `exit_path`
  std::error_code ignored;
  std::filesystem::remove(exit_path, ignored);  // a requeued job's earlier run

  run::container::PodmanRuntime podman(run::container::DetectPodmanHost(containers),
                                       containers.pull_timeout);
  if (spec.container) {
    Status pulled = podman.Pull(spec.container->image, [&](std::string_view line) {
      control::AppendServiceMessage(layout.service_log(), clock, false,
                                    fmt::format("{}: {}", task_name, line));
    });
    if (!pulled.ok()) {
      return give_up(pulled);
    }
  }

  const control::ExitRules rules =
      control::ExitRulesOf(launch->job.extras, shape.role, launch->job.job_id);
  ReplicaWatch watch;
  run::local::ProcessLauncher launcher(
      [&watch](int /*pid*/, ExitStatus status) { watch.OnExit(status); }, launch->supervisor,
      run::local::CurrentEnvironment(), &podman);
  for (int restarts = 0;; ++restarts) {
    Result<int> pid = launcher.Start(spec);
    if (!pid.ok()) {
      return give_up(pid.status());
    }
    (void)control::WriteFileAtomically(
        layout.started_path(task_name),
        EncodeTaskStarted({.node = my_node,
                           .host = placements[static_cast<std::size_t>(me)].host,
                           .pid = os::CurrentPid(),
                           .restarts = restarts}));
    const ExitStatus status = *watch.Wait(launcher, *pid, std::nullopt, clock);
    const WallTime ended = clock.Now();  // before any backoff
    // Whether the job succeeds is the executor's to say, from every task's exit file: here only
    // whether this replica starts again matters.
    const control::ReplicaExit exit{.role = shape.role,
                                    .index = shape.index,
                                    .status = status,
                                    .restarts = restarts,
                                    .job_restarts = JobRestarts(layout, *shapes),
                                    .others_succeeded = false,
                                    .final = false};
    control::ExitDecision decision = control::DecideOnExit(exit, rules, launch->restart);
    if (decision.action == control::ExitDecision::Action::kRestartJob) {
      // The other replicas run in other tasks of the step, which this one cannot restart.
      decision.action = control::ExitDecision::Action::kRestart;
    }
    if (decision.action == control::ExitDecision::Action::kRestart && !watch.stopped()) {
      control::AppendServiceMessage(
          layout.service_log(), clock, false,
          control::RestartMessage(task_name, exit, decision, rules, launch->restart));
      // The backoff, unless a stop signal ends it (then the replica is not started again).
      if (!watch.Wait(launcher, 0, clock.Monotonic() + decision.backoff, clock) &&
          !watch.stopped()) {
        continue;
      }
    }
    std::filesystem::remove(spec.exit_path, ignored);
    (void)control::WriteFileAtomically(exit_path,
                                       run::ExitFileText(status, status.ended.value_or(ended)));
    return ExitCodeOf(status);
  }
}

}  // namespace trainyard::agent
