// The executor test fixture: a real SQLite job store and controller in a temporary directory,
// a fake clock, a fake launcher and a fake stager; tests drive passes with RunOnce.
#pragma once

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "control/executor.h"
#include "control/exit_statuses.h"
#include "control/job_controller.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_launcher.h"
#include "fakes/temp_dir.h"
#include "logs/log_record.h"
#include "store/sqlite_job_store.h"
#include "support/sample_jobs.h"

namespace trainyard::control {
namespace {

using model::JobState;
using testing::Exited;
using testing::FakeClock;
using testing::FakeLauncher;
using testing::Killed;
using testing::TempDir;
using testing::ValidRuntimeJob;

constexpr std::string_view kProject = "p";

class FakeStager final : public run::Stager {
 public:
  Status Stage(const run::StageRequest& request) override {
    requests.push_back(request);
    return result;
  }
  void Release(const std::string& target_dir) override { released.push_back(target_dir); }
  Status result;
  std::vector<run::StageRequest> requests;
  std::vector<std::string> released;  // target dirs, in order
};

class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorTest() {
    std::filesystem::create_directories(dir_.path() / "buckets" / "my-bucket");
    store_ = std::move(*store::OpenSqliteJobStore(dir_.File("trainyard.db")));
    controller_ = std::make_unique<JobController>(*store_, catalog::Catalog::Builtin(), clock_);
  }

  void TearDown() override {
    if (executor_) {
      executor_->Stop(/*stop_replicas=*/false);
    }
  }

  ExecutorOptions Options() {
    ExecutorOptions options;
    options.data_dir = dir_.path().string();
    options.gcs_mount = (dir_.path() / "buckets").string();
    options.storage_emulator_host = "http://127.0.0.1:8470";
    sched::Node node{.name = "localhost", .cpus = 8, .memory_mib = 32768, .devices = {}};
    for (int i = 0; i < gpus_; ++i) {
      node.devices.push_back({.index = i, .accelerator = "NVIDIA_TESLA_T4", .model = "Tesla T4"});
    }
    options.inventory.nodes.push_back(node);
    options.python = "/usr/bin/python3";
    if (customize_) {
      customize_(options);
    }
    return options;
  }

  Executor& executor() {
    if (!executor_) {
      executor_ = std::make_unique<Executor>(*controller_, *store_, catalog::Catalog::Builtin(),
                                             clock_, launcher_, stager_, Options(),
                                             [this](std::function<void()> work) {
                                               if (defer_staging_) {
                                                 deferred_.push_back(std::move(work));
                                               } else {
                                                 work();
                                               }
                                             });
    }
    return *executor_;
  }

  void Submit(model::Job job) {
    const Result<model::Job> submitted = controller_->Submit(kProject, std::move(job));
    ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
  }

  model::Job Get(std::string_view id) { return *controller_->Get(kProject, id); }

  // Stores `id` in `state` as a server that stopped mid-way left it (no run of this executor).
  void SetStoredState(std::string_view id, model::JobState state) {
    ASSERT_TRUE(
        controller_
            ->Mutate(kProject, id,
                     [state](const model::Job& current) -> Result<std::optional<model::Job>> {
                       model::Job next = current;
                       next.state = state;
                       return std::optional(next);
                     })
            .ok());
  }

  // A few passes: enough for staging events posted by one pass to be handled by the next.
  void Settle() {
    for (int i = 0; i < 3; ++i) {
      executor().RunOnce();
    }
  }

  void Exit(int pid, ExitStatus status) {
    executor().OnExit(pid, status);
    Settle();
  }

  // `job` running the container `image` as its master instead of a Python package.
  static model::Job AsImageJob(model::Job job, std::string image) {
    model::TrainingInput& input = *job.training_input;
    trainyard::testing::DropPythonPackage(input);
    input.args.clear();
    input.master_config = model::ReplicaConfig{.image_uri = std::move(image)};
    return job;
  }

  static model::Job Distributed(std::string id, int workers, int ps) {
    model::Job job = ValidRuntimeJob(std::move(id));
    model::TrainingInput& input = *job.training_input;
    input.scale_tier = model::ScaleTier::kCustom;
    input.master_type = "n1-standard-4";
    input.worker_type = "n1-standard-4";
    input.worker_count = workers;
    if (ps > 0) {
      input.parameter_server_type = "n1-standard-4";
      input.parameter_server_count = ps;
    }
    return job;
  }

  static model::Job WithGpus(model::Job job, int count) {
    model::TrainingInput& input = *job.training_input;
    input.scale_tier = model::ScaleTier::kCustom;
    input.master_type = "n1-standard-8";
    input.master_config.emplace();
    input.master_config->accelerator_config =
        model::AcceleratorConfig{.count = count, .type = "NVIDIA_TESLA_T4"};
    return job;
  }

  std::string LogOf(int pid) {
    for (const FakeLauncher::Started& started : launcher_.started()) {
      if (started.pid == pid) {
        return started.spec.log_path;
      }
    }
    return {};
  }

  // Appends records of `stream` with `lines` to the log of `pid`, as its supervisor would.
  void Output(int pid, logs::Stream stream, const std::vector<std::string>& lines) {
    const std::string path = LogOf(pid);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::string records;
    for (const std::string& line : lines) {
      logs::AppendRecord(records, "2026-11-21T09:35:01.000000Z", stream, line);
    }
    std::ofstream(path, std::ios::app) << records;
  }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<store::JobStore> store_;
  std::unique_ptr<JobController> controller_;
  FakeLauncher launcher_;
  FakeStager stager_;
  int gpus_ = 2;
  bool defer_staging_ = false;
  std::vector<std::function<void()>> deferred_;
  // Applied last to the executor's options (a cluster backend, a restart policy, …).
  std::function<void(ExecutorOptions&)> customize_;
  std::unique_ptr<Executor> executor_;
};

}  // namespace
}  // namespace trainyard::control
