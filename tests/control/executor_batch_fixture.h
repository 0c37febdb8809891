// The executor with the cluster backend (agent/cluster_job_backend.h): the executor fixture with
// a ClusterJobBackend over a FakeClusterBackend as ExecutorOptions::backend. Tests play the tasks'
// part by writing their exit, started and log files, and the manager's by setting the states its
// Query answers.
#pragma once

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agent/batch_launch.h"
#include "agent/cluster_job_backend.h"
#include "control/executor_fixture.h"
#include "control/job_layout.h"
#include "control/local_backend.h"
#include "fakes/fake_cluster_backend.h"
#include "logs/log_record.h"

namespace trainyard::control {
namespace {

using agent::BatchLaunch;
using agent::EncodeTaskStarted;
using agent::ReadBatchLaunch;
using testing::FakeClusterBackend;
using Phase = run::ClusterJobState::Phase;

class ExecutorBatchTest : public ExecutorTest {
 protected:
  static constexpr int kFirstPort = 30000;

  ExecutorBatchTest() {
    customize_ = [this](ExecutorOptions& options) {
      if (!with_manager_) {
        return;  // the executor's own local backend, over launcher_
      }
      // Each executor (a restarted server) gets a backend of its own, as `serve` does, and the
      // local one for what a server without a manager left running.
      earlier_local_ = std::make_unique<LocalBackend>(
          launcher_, catalog::Catalog::Builtin(), clock_,
          LocalBackendOptions{.data_dir = options.data_dir, .inventory = options.inventory});
      cluster_ = std::make_unique<agent::ClusterJobBackend>(
          backend_, catalog::Catalog::Builtin(), clock_,
          agent::ClusterJobOptions{.data_dir = options.data_dir,
                                   .task_command = {"/opt/ty/bin/trainyard", "batch-task"},
                                   .supervisor = "/opt/ty/bin/trainyard-replica",
                                   .first_port = kFirstPort,
                                   .port_count = 100,
                                   .node_addresses = {{"n1", "10.0.0.1"}},
                                   .restart = options.restart},
          earlier_local_.get());
      options.backend = cluster_.get();
    };
  }
  ~ExecutorBatchTest() override { executor_.reset(); }  // before the backend it uses

  JobLayout Layout(std::string_view job, std::string_view trial = "") const {
    return {dir_.path().string(), kProject, job, trial};
  }

  // One pass after the manager's poll interval: the executor asks the manager again.
  void Poll() {
    clock_.Advance(std::chrono::seconds(1));
    Settle();
  }

  // The manager ended the job: the executor sees it, and the exit files' grace passes.
  void ManagerEnds(const std::string& id, std::string state, std::string reason = "") {
    backend_.SetState(id, Phase::kFinished, std::move(state), std::move(reason));
    Poll();
    clock_.Advance(std::chrono::seconds(3));
    Settle();
  }

  static void WriteFile(const std::string& path, std::string_view text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::trunc) << text;
  }

  // What `trainyard batch-task` writes when its replica ends.
  void TaskExits(std::string_view job, std::string_view task, std::string_view text,
                 std::string_view trial = "") {
    WriteFile(Layout(job, trial).exit_path(task), text);
  }
  void TaskStarts(std::string_view job, std::string_view task, int restarts) {
    WriteFile(
        Layout(job).started_path(task),
        EncodeTaskStarted({.node = "n2", .host = "10.0.0.2", .pid = 4242, .restarts = restarts}));
  }
  // Records the replica's supervisor writes to its log.
  void TaskOutput(std::string_view job, std::string_view task, logs::Stream stream,
                  const std::vector<std::string>& lines) {
    const std::string path = Layout(job).log_path(task);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::string records;
    for (const std::string& line : lines) {
      logs::AppendRecord(records, "2026-11-21T09:35:01.000000Z", stream, line);
    }
    std::ofstream(path, std::ios::app) << records;
  }

  // The texts of the job's service log records.
  std::vector<std::string> ServiceLog(std::string_view job, std::string_view trial = "") const {
    std::ifstream in(Layout(job, trial).service_log());
    std::vector<std::string> texts;
    for (std::string line; std::getline(in, line);) {
      if (const std::optional<logs::LogRecord> record = logs::ParseRecord(line)) {
        texts.emplace_back(record->text);
      }
    }
    return texts;
  }
  int CountInServiceLog(std::string_view job, std::string_view text) const {
    const std::vector<std::string> texts = ServiceLog(job);
    return static_cast<int>(std::count(texts.begin(), texts.end(), std::string(text)));
  }

  Result<BatchLaunch> LaunchOf(std::string_view job, std::string_view trial = "") const {
    return ReadBatchLaunch(Layout(job, trial).launch_file());
  }

  std::vector<std::string> ReplicaStates(std::string_view job) {
    std::vector<std::string> states;
    for (const ReplicaInfo& info :
         executor().Replicas(kProject, job).value_or(std::vector<ReplicaInfo>{})) {
      states.push_back(info.state);
    }
    return states;
  }

  // The server dies (nothing is stopped) and a new executor takes over on the same data dir.
  void ServerRestarts() {
    executor().Stop(/*stop_replicas=*/false);
    executor_.reset();
    executor().Recover();
    Settle();
  }

  bool with_manager_ = true;  // false: the next executor runs without one (a local server)
  FakeClusterBackend backend_;
  std::unique_ptr<LocalBackend> earlier_local_;
  std::unique_ptr<agent::ClusterJobBackend> cluster_;
};

}  // namespace
}  // namespace trainyard::control
