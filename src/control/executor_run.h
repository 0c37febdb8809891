// Internal to control/: the executor's record of one job it is running, and its events.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/clock.h"
#include "control/executor.h"
#include "control/run_record.h"
#include "model/job.h"
#include "plan/cluster_plan.h"
#include "plan/replicas.h"
#include "run/launcher.h"
#include "sched/placement.h"

namespace trainyard::control {

struct ExitEvent {
  int pid = 0;
  run::ExitStatus status;
};

struct StagedEvent {
  std::string key;
  Status status;
};

struct Executor::Event : std::variant<ExitEvent, StagedEvent> {
  using variant::variant;
};

struct Executor::Run {
  enum class Phase {
    kStaging,   // PREPARING: packages being installed
    kRunning,   // replicas started (RUNNING)
    kStopping,  // replicas being stopped; the outcome is written once all have exited
  };

  struct Replica {
    plan::ReplicaShape shape;
    run::ProcessSpec spec;
    int pid = 0;
    bool alive = false;
    int restarts = 0;
    std::optional<MonoTime> restart_at;
    MonoTime started{};
    WallTime started_wall{};
    double seconds = 0;  // machine time so far, over every start
    std::optional<run::ExitStatus> last_exit;
  };

  std::string key;  // "project/jobId"
  std::string project;
  std::string job_id;
  Phase phase = Phase::kStaging;
  sched::Allocation allocation;
  std::vector<Replica> replicas;  // parallel to the job's ReplicaShapes

  // Staging finished after the job left PREPARING (cancelled): drop the run when it reports.
  bool abandoned = false;

  // Set by BeginStop.
  model::JobState outcome = model::JobState::kUnspecified;
  std::string message;
  bool write_outcome = true;  // false when the job already reached a terminal state elsewhere
  MonoTime stop_started{};
  bool killed = false;  // SIGKILL sent

  bool done = false;  // to be removed by the loop
};

// A QUEUED job as the queue scan sees it.
struct Executor::Queued {
  std::string project;
  model::Job job;
  std::vector<plan::ReplicaShape> shapes;
  sched::JobDemand demand;
};

// The job's scheduling.maxWaitTime, if any.
std::optional<std::chrono::nanoseconds> MaxWaitTime(const model::Job& job);
std::string_view MaxWaitTimeMessage();
std::string_view CancelledMessage();

}  // namespace trainyard::control
