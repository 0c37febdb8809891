#include "control/executor.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "control/executor_run.h"
#include "control/job_layout.h"
#include "control/local_backend.h"
#include "plan/cluster_plan.h"

namespace trainyard::control {
namespace {

constexpr std::chrono::seconds kQueueScanInterval{1};
// How long Warn keeps quiet about a message it has said.
constexpr std::chrono::minutes kWarnAgainAfter{1};

}  // namespace

Executor::Executor(JobController& controller, const store::JobStore& store,
                   const catalog::Catalog& catalog, const Clock& clock, run::Launcher& launcher,
                   run::Stager& stager, ExecutorOptions options, AsyncRunner run_async)
    : controller_(controller),
      store_(store),
      catalog_(catalog),
      clock_(clock),
      launcher_(launcher),
      stager_(stager),
      options_(std::move(options)),
      run_async_(std::move(run_async)) {
  backend_ = options_.backend;
  if (backend_ == nullptr) {
    local_ = std::make_unique<LocalBackend>(
        launcher_, catalog_, clock_,
        LocalBackendOptions{.data_dir = options_.data_dir, .inventory = options_.inventory});
    backend_ = local_.get();
  }
  backend_->Attach(*this);
  if (!run_async_) {
    run_async_ = [this](std::function<void()> work) {
      auto done = std::make_shared<std::atomic<bool>>(false);
      std::lock_guard lock(mu_);
      workers_.push_back({std::thread([work = std::move(work), done] {
                            work();
                            done->store(true);
                          }),
                          done});
    };
  }
}

Executor::~Executor() {
  Stop();
}

WallTime Executor::Now() const {
  return std::chrono::floor<std::chrono::microseconds>(clock_.Now());
}

void Executor::Warn(const std::string& message) {
  const MonoTime now = clock_.Monotonic();
  if (auto it = warned_.find(message); it != warned_.end() && now - it->second < kWarnAgainAfter) {
    return;
  }
  std::erase_if(warned_, [&](const auto& entry) { return now - entry.second >= kWarnAgainAfter; });
  warned_[message] = now;
  if (options_.warn) {
    options_.warn(message);
  } else {
    fmt::print(stderr, "trainyard: {}\n", message);
  }
}

void Executor::Start() {
  RestoreUsage();
  Recover();
  PublishReplicas();
  std::lock_guard lock(mu_);
  if (loop_.joinable()) {
    return;
  }
  stopping_ = false;
  loop_ = std::thread([this] { Loop(); });
}

void Executor::Stop(bool stop_replicas) {
  {
    std::lock_guard lock(mu_);
    if (stopped_) {
      return;
    }
    stopping_ = true;
    stopped_ = true;
  }
  cv_.notify_all();
  if (loop_.joinable()) {
    loop_.join();
  }
  CountUsage(RunningAllocations(), Now());  // up to now, before the replicas are stopped
  // Installs end now (recovery stages again); their runs wait for no one.
  for (auto& [key, stop] : staging_) {
    stop.request_stop();
  }
  if (stop_replicas) {
    StopAllReplicas();
  }
  // What was counted since the last write is kept for the next server.
  CountUsage(RunningAllocations(), Now(), /*force=*/true);
  std::vector<Worker> workers;
  {
    std::lock_guard lock(mu_);
    workers.swap(workers_);
  }
  for (Worker& worker : workers) {
    worker.thread.join();
  }
}

void Executor::ReapWorkers() {
  std::vector<Worker> finished;
  {
    std::lock_guard lock(mu_);
    auto done = std::stable_partition(workers_.begin(), workers_.end(),
                                      [](const Worker& worker) { return !worker.done->load(); });
    std::move(done, workers_.end(), std::back_inserter(finished));
    workers_.erase(done, workers_.end());
  }
  for (Worker& worker : finished) {
    worker.thread.join();  // returns at once: its work is over
  }
}

void Executor::StopAllReplicas() {
  for (auto& [key, run] : runs_) {
    if (run->phase == Run::Phase::kStaging) {
      run->write_outcome = false;  // recovery puts it back in the queue
    }
    BeginStop(*run, model::JobState::kFailed,
              "The trainyard server was stopped while the job was running.");
  }
  // Wait (in real time: the loop no longer runs) for the exits the launcher reports: SIGTERM's
  // grace period, then SIGKILL and a little more.
  auto drain = [this](std::chrono::milliseconds budget) {
    for (auto waited = std::chrono::milliseconds(0); !runs_.empty() && waited < budget;
         waited += options_.tick) {
      {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, options_.tick, [this] { return !events_.empty(); });
      }
      RunOnce();
    }
  };
  drain(options_.stop_grace);
  for (auto& [key, run] : runs_) {
    backend_->Kill(*run);
  }
  drain(std::chrono::seconds(5));
  for (auto& [key, study] : studies_) {
    if (study->phase == Study::Phase::kTrials) {  // one still PREPARING is left to recovery
      study->end =
          Study::End{.outcome = model::JobState::kFailed,
                     .message = "The trainyard server was stopped while the job was running."};
      FinishStudy(*study);
    }
  }
}

void Executor::Wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void Executor::OnExit(int pid, ExitStatus status) {
  Post(Event{ExitEvent{pid, status}});
}

void Executor::ReportExit(int pid, ExitStatus status) {
  OnExit(pid, status);
}

JobRun* Executor::FindRun(const std::string& key) {
  const auto found = runs_.find(key);
  return found == runs_.end() ? nullptr : found->second.get();
}

Result<model::Job> Executor::StoredJob(const std::string& project,
                                       const std::string& job_id) const {
  return store_.Get(project, job_id);
}

void Executor::Post(Event event) {
  {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(event));
  }
  cv_.notify_all();
}

void Executor::Loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, options_.tick, [this] { return stopping_ || woken_ || !events_.empty(); });
    if (stopping_) {
      break;
    }
    lock.unlock();
    RunOnce();
    lock.lock();
  }
}

void Executor::RunOnce() {
  ReapWorkers();
  std::vector<Event> events;
  bool woken = false;
  {
    std::lock_guard lock(mu_);
    events.swap(events_);
    woken = woken_;
    woken_ = false;
  }
  const std::size_t runs_before = runs_.size();
  for (Event& event : events) {
    ProcessEvent(event);
  }
  backend_->Poll();
  for (auto it = runs_.begin(); it != runs_.end();) {
    Run& run = *it->second;
    CheckRun(run);
    if (run.Done()) {
      backend_->Forget(run);
      if (run.trial_id.empty()) {  // a trial's packages and private dirs are its study's
        stager_.Release(JobLayout(options_.data_dir, run.project, run.job_id).packages_dir());
        RemovePrivateDirs(run.project, run.job_id);
      }
      it = runs_.erase(it);
    } else {
      ++it;
    }
  }
  bool stopping = false;
  {
    std::lock_guard lock(mu_);
    stopping = stopping_;
  }
  if (!stopping && CheckStudies()) {
    woken = true;
  }
  StopUnwantedStaging();
  const MonoTime now = clock_.Monotonic();
  if (!stopping && (woken || runs_.size() < runs_before || now >= next_queue_scan_)) {
    next_queue_scan_ = now + kQueueScanInterval;
    ScheduleQueue();
  }
  PublishReplicas();
}

void Executor::PublishReplicas() {
  std::map<std::string, std::vector<ReplicaInfo>, std::less<>> published;
  for (const auto& [key, run] : runs_) {
    if (run->phase == Run::Phase::kStaging) {
      continue;
    }
    std::vector<ReplicaInfo>& infos = published[run->project + "/" + run->job_id];
    for (std::size_t index = 0; index < run->replicas.size(); ++index) {
      const Run::Replica& replica = run->replicas[index];
      ReplicaInfo info{.task_name = replica.shape.task_name,
                       .trial_id = run->trial_id,
                       .pid = replica.pid,
                       .restarts = replica.restarts};
      if (replica.alive) {
        info.state = run->Stopping() ? "STOPPING" : backend_->Pending(*run) ? "PENDING" : "RUNNING";
      } else {
        info.state = replica.restart_at || run->job_restart ? "RESTARTING" : "EXITED";
      }
      if (replica.last_exit) {
        info.exit_status = replica.last_exit->Describe();
      }
      if (replica.started_wall != WallTime{}) {
        info.started_at = replica.started_wall;
      }
      if (replica.ended_wall && *replica.ended_wall >= replica.started_wall) {
        info.ended_at = replica.ended_wall;
      }
      // The allocation lists the replicas in the job's order, as `replicas` does.
      if (index < run->allocation.replicas.size()) {
        const sched::ReplicaAssignment& placed = run->allocation.replicas[index];
        if (placed.node < options_.inventory.nodes.size()) {
          info.node = options_.inventory.nodes[placed.node].name;
        }
        info.device_indices = placed.device_indices;
      }
      infos.push_back(std::move(info));
    }
  }
  std::lock_guard lock(mu_);
  replicas_.swap(published);
}

std::optional<std::vector<ReplicaInfo>> Executor::Replicas(std::string_view project,
                                                           std::string_view job_id) const {
  std::string key(project);
  key.push_back('/');
  key.append(job_id);
  std::lock_guard lock(mu_);
  const auto found = replicas_.find(key);
  if (found == replicas_.end()) {
    return std::nullopt;
  }
  return found->second;
}

std::map<std::string, std::vector<ReplicaInfo>, std::less<>> Executor::AllReplicas() const {
  std::lock_guard lock(mu_);
  return replicas_;
}

std::vector<QueuedInfo> Executor::Queue() const {
  std::lock_guard lock(mu_);
  return queue_;
}

void Executor::SetSharingPolicy(SharingPolicyPtr policy) {
  {
    std::lock_guard lock(mu_);
    sharing_ = std::move(policy);
  }
  Wake();
}

std::map<std::string, sched::Amounts, std::less<>> Executor::UseByProject() const {
  std::lock_guard lock(mu_);
  return use_;
}

void Executor::ProcessEvent(Event& event) {
  if (auto* exit = std::get_if<ExitEvent>(&event)) {
    backend_->Exited(exit->pid, exit->status);
  } else if (auto* staged = std::get_if<StagedEvent>(&event)) {
    staging_.erase(staged->key);
    // Stopped: a study no longer waits for it (a run does, to be dropped).
    if (staged->status.code() == Code::kCancelled && studies_.contains(staged->key)) {
      return;
    }
    HandleStaged(staged->key, staged->status);
  }
}

void Executor::StopUnwantedStaging() {
  for (auto& [key, stop] : staging_) {
    bool wanted = false;
    if (auto run = runs_.find(key); run != runs_.end()) {
      wanted = run->second->phase == Run::Phase::kStaging;  // CheckRun stops one it drops
    } else if (auto study = studies_.find(key); study != studies_.end()) {
      wanted = study->second->phase == Study::Phase::kStaging && !study->second->end;
    }
    if (!wanted) {
      stop.request_stop();
    }
  }
}

std::optional<model::Job> Executor::WriteIf(model::JobState state, const std::string& project,
                                            const std::string& job_id, std::string_view what,
                                            const std::function<void(model::Job&)>& change) {
  Result<model::Job> written = Transition(project, job_id, [&](model::Job& current) {
    if (current.state != state) {
      return false;  // changed meanwhile (a cancel): the next pass sees it
    }
    const model::Job before = current;
    change(current);
    return current != before;
  });
  if (!written.ok()) {
    WarnIfRefused(written, project, job_id,
                  fmt::format("{} while {}", what, model::JobStateName(state)));
    return std::nullopt;
  }
  return std::move(*written);
}

void Executor::WarnIfRefused(const Result<model::Job>& written, const std::string& project,
                             const std::string& job_id, std::string_view what) {
  if (!written.ok() && written.status().code() != Code::kNotFound) {
    Warn(fmt::format("The job {}/{} was not updated ({}): {}", project, job_id, what,
                     written.status().message()));
  }
}

Result<model::Job> Executor::Transition(const std::string& project, const std::string& job_id,
                                        const std::function<bool(model::Job&)>& change) {
  return JobOf(controller_.Mutate(
      project, job_id, [&](const model::Job& current) -> Result<std::optional<model::Job>> {
        model::Job next = current;
        if (!change(next)) {
          return std::optional<model::Job>();
        }
        return std::optional(std::move(next));
      }));
}

}  // namespace trainyard::control
