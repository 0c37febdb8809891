// The executor's queue: placement of QUEUED jobs, preemption, maxWaitTime, jobPosition, and
// recovery of what a previous server left.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "control/executor.h"
#include "control/executor_run.h"
#include "control/job_directories.h"
#include "control/job_layout.h"
#include "control/service_log.h"
#include "plan/replicas.h"
#include "sched/wait_reason.h"

namespace trainyard::control {
namespace {}  // namespace

std::vector<sched::Allocation> Executor::RunningAllocations() const {
  std::vector<sched::Allocation> allocations;
  for (const auto& [key, run] : runs_) {
    allocations.push_back(run->allocation);
    allocations.back().stopping = run->Stopping();
  }
  for (const auto& [key, study] : studies_) {
    if (study->pending) {
      allocations.push_back(*study->pending);
    }
  }
  return allocations;
}

void Executor::CountUsage(const std::vector<sched::Allocation>& running, WallTime now, bool force) {
  if (sched::CountUsage(usage_, options_.inventory, running, now)) {
    usage_unwritten_ = true;
  }
  if (options_.usage_store == nullptr ||
      !(force ? usage_unwritten_
              : sched::UsageWriteDue(usage_unwritten_, usage_write_attempt_, now,
                                     options_.usage_write_interval))) {
    return;
  }
  usage_write_attempt_ = now;
  store::UsageRows rows{
      .counted_unix_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count()};
  rows.projects.assign(usage_.seconds.begin(), usage_.seconds.end());
  if (Status written = options_.usage_store->PutUsage(rows); !written.ok()) {
    Warn("The projects' recent use of the devices was not saved (tried again in " +
         std::to_string(options_.usage_write_interval.count()) + " s): " + written.message());
    return;
  }
  usage_unwritten_ = false;
}

void Executor::RestoreUsage() {
  if (options_.usage_store == nullptr) {
    return;
  }
  Result<store::UsageRows> rows = options_.usage_store->LoadUsage();
  if (!rows.ok()) {
    Warn(
        "The projects' recent use of the devices could not be read; the fair-share order "
        "starts afresh: " +
        rows.status().message());
    return;
  }
  sched::RecentUsage saved;
  saved.seconds.insert(rows->projects.begin(), rows->projects.end());
  if (rows->counted_unix_ms != 0) {
    saved.counted = WallTime(std::chrono::duration_cast<WallTime::duration>(
        std::chrono::milliseconds(rows->counted_unix_ms)));
  }
  usage_ = sched::RestoreUsage(saved, Now());
}

void Executor::ScheduleQueue() {
  // Nothing is placed before what a previous server left is taken over: its replicas may still
  // hold the devices. A Recover that could not list the jobs at start is tried again here.
  if (!recovered_) {
    Recover();
    if (!recovered_) {
      return;  // Recover warned; the next scan tries again
    }
  }
  Result<std::vector<std::pair<std::string, model::Job>>> unfinished = store_.ListUnfinished();
  if (!unfinished.ok()) {
    Warn("The queue was not scanned: the job store could not list the queued jobs: " +
         unfinished.status().message());
    return;  // the next scan tries again
  }
  const WallTime now = Now();
  const std::vector<sched::Allocation> running = RunningAllocations();
  const std::vector<sched::JobDemand> trials = TrialDemands();
  CountUsage(running, now);
  std::set<std::string, std::less<>> held;
  for (const auto& [key, run] : runs_) {
    held.insert(run->project + "/" + run->job_id);
  }
  for (const auto& [key, study] : studies_) {
    held.insert(key);
  }
  const SharingPolicyPtr sharing = [&] {
    std::lock_guard lock(mu_);
    return sharing_;
  }();
  QueuePass pass = ReconcileQueue({.jobs = *unfinished,
                                   .catalog = catalog_,
                                   .inventory = options_.inventory,
                                   .accounting = options_.accounting,
                                   .running = running,
                                   .trials = trials,
                                   .now = now,
                                   .hand_over = backend_->PlacesJobs(),
                                   .hold = options_.hold_queue,
                                   .held = recovered_ ? &held : nullptr,
                                   .sharing = sharing.get(),
                                   .usage = &usage_.seconds});
  for (QueueAction& action : pass.actions) {
    if (auto* end = std::get_if<EndQueuedJob>(&action)) {
      WriteIf(model::JobState::kQueued, end->project, end->job_id, "end", [&](model::Job& current) {
        current.state = end->state;
        current.error_message = end->message;
        current.start_time = now;
        current.end_time = now;
        current.job_position = 0;
      });
    } else if (auto* position = std::get_if<SetPosition>(&action)) {
      WriteIf(model::JobState::kQueued, position->project, position->job_id, "position",
              [&](model::Job& current) { current.job_position = position->position; });
    } else if (auto* orphan = std::get_if<EndOrphan>(&action)) {
      EndOrphaned(*orphan);
    } else if (auto* preempt = std::get_if<PreemptJob>(&action)) {
      // Only a running job is stopped; one still staging is chosen again on a later pass.
      auto run = runs_.find(preempt->project + "/" + preempt->job_id);
      if (run != runs_.end() && run->second->phase == Run::Phase::kRunning) {
        Suspend(*run->second, preempt->message);
      }
    } else if (auto* trial = std::get_if<PlaceTrial>(&action)) {
      if (auto study = studies_.find(trial->study_key); study != studies_.end()) {
        StartTrial(*study->second, trial->allocation);
      }
    } else {
      StartQueued(std::get<PlaceJob>(action), now);
    }
  }
  std::map<std::string, sched::Amounts, std::less<>> use =
      sched::UseByProject(options_.inventory, RunningAllocations());
  std::lock_guard lock(mu_);
  queue_.swap(pass.queue);
  use_.swap(use);
}

void Executor::StartQueued(PlaceJob& start, WallTime now) {
  std::optional<model::Job> preparing = WriteIf(model::JobState::kQueued, start.project,
                                                start.job_id, "start", [&](model::Job& current) {
                                                  current.state = model::JobState::kPreparing;
                                                  current.start_time = now;
                                                  current.job_position = 0;
                                                });
  if (!preparing || preparing->state != model::JobState::kPreparing) {
    return;
  }
  const model::TrainingInput& input = *preparing->training_input;
  const JobLayout layout(options_.data_dir, start.project, start.job_id);
  // Before staging writes its log there (and a study's trials their files): only the server
  // writes in these directories (control/job_directories.h).
  Status secured = SecureServerDirectories(layout);
  const std::string key = start.allocation.key;
  std::vector<std::string> images;  // every distinct image the replicas run
  for (const plan::ReplicaShape& shape : start.shapes) {
    if (!shape.config.image_uri.empty() &&
        std::ranges::find(images, shape.config.image_uri) == images.end()) {
      images.push_back(shape.config.image_uri);
    }
  }
  if (input.hyperparameters) {
    BeginStudy(start.project, *preparing, start.allocation);
  } else {
    auto run = std::make_unique<Run>();
    run->key = key;
    run->project = start.project;
    run->job_id = start.job_id;
    run->allocation = start.allocation;
    for (plan::ReplicaShape& shape : start.shapes) {
      run->replicas.push_back(Run::Replica{.shape = std::move(shape)});
    }
    runs_[key] = std::move(run);
  }
  if (!secured.ok() || (input.package_uris.empty() && images.empty())) {
    HandleStaged(key, secured, std::move(*preparing));
    return;
  }
  // Host containers pull nothing: staged at once, without a thread, and launched on the next
  // pass, after the exits reported meanwhile (the launch reads the job again: it may have been
  // cancelled in between).
  if (input.package_uris.empty() && options_.containers_on_host) {
    Post(Event{StagedEvent{key, Status()}});
    return;
  }
  run::StageRequest request;
  request.package_uris = input.package_uris;
  request.gcs_mount = options_.gcs_mount;
  request.target_dir = layout.packages_dir();
  request.python = PythonFor(input);
  request.log_path = layout.staging_log();
  request.pid_file = layout.staging_pid_file();
  std::stop_source& stop = staging_[key];
  stop = std::stop_source();
  request.stop = stop.get_token();
  run_async_([this, key, request = std::move(request), images = std::move(images),
              service_log = layout.service_log()] {
    Status staged = request.package_uris.empty() ? Status() : stager_.Stage(request);
    if (staged.ok() && !images.empty() && !options_.containers_on_host) {
      staged = PullImages(images, service_log);
    }
    Post(Event{StagedEvent{key, std::move(staged)}});
  });
}

Status Executor::PullImages(const std::vector<std::string>& images,
                            const std::string& service_log) {
  if (options_.containers == nullptr) {
    return Status::FailedPrecondition(
        "This job runs container images, but this server runs no container engine.");
  }
  for (const std::string& image : images) {
    Status pulled = options_.containers->Pull(image, [&](std::string_view line) {
      AppendServiceMessage(service_log, clock_, false, line);
    });
    if (!pulled.ok()) {
      return pulled;
    }
  }
  return {};
}

void Executor::Recover() {
  Result<std::vector<std::pair<std::string, model::Job>>> unfinished = store_.ListUnfinished();
  if (!unfinished.ok()) {
    Warn(
        "What a previous server left was not taken over yet: the job store could not list the "
        "unfinished jobs: " +
        unfinished.status().message() + " (tried again on the next queue scan)");
    return;
  }
  for (const auto& [project, job] : *unfinished) {
    if (job.state == model::JobState::kQueued || runs_.contains(project + "/" + job.job_id) ||
        studies_.contains(project + "/" + job.job_id)) {
      continue;
    }
    if (job.state != model::JobState::kPreparing && job.training_input &&
        job.training_input->hyperparameters) {
      RecoverStudy(project, job);
      continue;
    }
    const JobLayout layout(options_.data_dir, project, job.job_id);
    Result<RunRecord> record = ReadRunRecord(layout.run_record());
    // A job the backend accepted whole (a cluster manager's) is taken over in any state: it may
    // still wait for resources. A PREPARING job whose every replica was started and recorded
    // lost only its RUNNING write: it is taken over too, since starting it again would run a
    // trainer that may have ended.
    const bool preparing = job.state == model::JobState::kPreparing;
    const bool submitted = record.ok() && backend_->Submitted(*record);
    const bool launched = record.ok() && !record->replicas.empty() &&
                          std::ranges::all_of(record->replicas, [](const RunRecord::Replica& r) {
                            return r.pid > 0;
                          });
    if (record.ok() && (!preparing || submitted || launched) && Adopt(project, job, *record)) {
      if (preparing && !submitted) {
        MarkStarted(*runs_.at(project + "/" + job.job_id));
      }
      continue;
    }
    // Started while PREPARING (or not adoptable): nothing of it may go on running.
    if (std::optional<EndOrphan> orphan = OrphanEnd(project, job)) {
      EndOrphaned(*orphan);
    }
  }
  recovered_ = true;
  RemoveStalePrivateDirs();
}

void Executor::EndOrphaned(const EndOrphan& orphan) {
  const JobLayout layout(options_.data_dir, orphan.project, orphan.job.job_id);
  if (Result<RunRecord> record = ReadRunRecord(layout.run_record()); record.ok()) {
    backend_->KillRecorded(*record);
    std::error_code error;
    std::filesystem::remove(layout.run_record(), error);
  }
  backend_->KillUnrecorded(orphan.job, layout);
  const WallTime now = Now();
  WriteIf(orphan.job.state, orphan.project, orphan.job.job_id, "taken back",
          [&](model::Job& current) {
            current.state = orphan.to;
            if (orphan.to == model::JobState::kQueued) {
              current.start_time.reset();  // set again when it is placed
            } else {
              current.error_message = orphan.message;
              current.end_time = now;
            }
          });
}

bool Executor::Adopt(const std::string& project, const model::Job& job, const RunRecord& record,
                     const model::HyperparameterOutput* trial) {
  if (!job.training_input) {
    return false;
  }
  Result<std::vector<plan::ReplicaShape>> shapes = plan::JobReplicas(job, catalog_);
  if (!shapes.ok() || shapes->size() != record.replicas.size()) {
    return false;
  }
  auto run = std::make_unique<Run>();
  run->key = project + "/" + job.job_id;
  run->project = project;
  run->job_id = job.job_id;
  if (trial != nullptr) {
    run->key += "/trial-" + trial->trial_id;
    run->trial_id = trial->trial_id;
    run->hyperparameters.assign(trial->hyperparameters.begin(), trial->hyperparameters.end());
  }
  run->phase = Run::Phase::kRunning;
  run->allocation.key = run->key;
  run->extras = job.extras;
  run->restarts = record.restarts;
  if (!backend_->Adopt(*run, job, record, std::move(*shapes))) {
    return false;
  }
  const std::string key = run->key;
  runs_[key] = std::move(run);
  return true;
}
}  // namespace trainyard::control
