// SlurmBackend against the real Slurm test cluster (the CTest fixture slurm_cluster: 4 nodes of 8
// CPUs, 16000 MB and gpu:fake:2 each, MinJobAge=5, jobcomp/filetxt and no slurmdbd, so finished
// jobs are read with `sacct -c`). Each test waits for Slurm by polling Query, with a bound.
#include "run/slurm/slurm_backend.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <stdlib.h>

#include "run/slurm/hostlist.h"
#include "support/build_paths.h"
#include "support/slurm_cluster.h"
#include "support/wait.h"

namespace trainyard::run::slurm {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Phase = ClusterJobState::Phase;

constexpr std::chrono::milliseconds kDeadline = 2min;  // for anything to happen

std::string PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kPending:
      return "kPending";
    case Phase::kRunning:
      return "kRunning";
    case Phase::kFinished:
      return "kFinished";
    case Phase::kUnknown:
      return "kUnknown";
  }
  return "?";
}

// "key=value key=value" words of one line.
std::map<std::string, std::string> Fields(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    const std::size_t eq = word.find('=');
    if (eq != std::string::npos) {
      fields[word.substr(0, eq)] = word.substr(eq + 1);
    }
  }
  return fields;
}

std::string FirstLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

class SlurmBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const testing::SlurmClusterCheck cluster = testing::CheckSlurmCluster(testing::SlurmStateDir());
    if (!cluster.available()) {
      if (cluster.required) {
        FAIL() << cluster.why;
      }
      GTEST_SKIP() << cluster.why;
    }
    setenv("SLURM_CONF", cluster.slurm_conf.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    // Under the build directory: the nodes (all this machine) write there as root.
    const fs::path root = fs::path(testing::BinaryDir()) / "slurm-tests";
    fs::create_directories(root);
    std::string pattern = (root / "job-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }

  void TearDown() override {
    for (const std::string& id : submitted_) {
      (void)backend_.Cancel(id);  // a test that failed half-way leaves nothing running
    }
    if (!dir_.empty() && !HasFailure()) {
      std::error_code ignored;
      fs::remove_all(dir_, ignored);
    }
  }

  static SlurmConfig TestConfig(FinishedJobs finished_jobs) {
    SlurmConfig config;
    config.gres_types = {{"NVIDIA_TESLA_T4", "fake"}};
    config.finished_jobs = finished_jobs;
    return config;
  }

  // A job whose every task runs `/bin/sh -c script`.
  ClusterJobRequest Request(const std::string& name, std::vector<ComponentRequest> components,
                            const std::string& script) const {
    return ClusterJobRequest{.name = name,
                             .components = std::move(components),
                             .task_command = {"/bin/sh", "-c", script},
                             .working_dir = dir_.string(),
                             .output_path = (dir_ / "batch.out").string(),
                             .time_limit = std::chrono::minutes(10)};
  }

  static ComponentRequest Component(std::string role, int tasks) {
    return ComponentRequest{.role = std::move(role), .tasks = tasks, .memory_mib = 200};
  }

  std::string Submit(const ClusterJobRequest& request) {
    Result<std::string> id = backend_.Submit(request);
    EXPECT_TRUE(id.ok()) << id.status().message();
    if (!id.ok()) {
      return "";
    }
    submitted_.push_back(*id);
    return *id;
  }

  // Polls `backend` until `done` holds for the job's state (within 2 minutes); returns the last
  // state.
  static ClusterJobState WaitFor(SlurmBackend& backend, const std::string& id,
                                 const std::function<bool(const ClusterJobState&)>& done) {
    ClusterJobState state;
    bool queried = true;
    const bool reached = testing::WaitUntil(
        [&] {
          Result<std::map<std::string, ClusterJobState>> states = backend.Query({id});
          queried = states.ok();
          EXPECT_TRUE(queried) << states.status().message();
          if (queried) {
            state = states->at(id);
          }
          return !queried || done(state);
        },
        kDeadline);
    if (!reached) {
      ADD_FAILURE() << "job " << id << " still " << PhaseName(state.phase) << " " << state.state
                    << " (" << state.reason << ") after " << kDeadline.count() << " ms";
    }
    return state;
  }

  ClusterJobState WaitForPhase(const std::string& id, Phase phase) {
    return WaitFor(backend_, id, [phase](const ClusterJobState& s) { return s.phase == phase; });
  }

  fs::path dir_;
  SlurmBackend backend_{TestConfig(FinishedJobs::kJobcomp)};
  std::vector<std::string> submitted_;
};

TEST_F(SlurmBackendTest, HetJobRunsEveryTaskOnANodeOfItsOwnWithGpusWhereAsked) {
  ComponentRequest worker = Component("worker", 2);
  worker.accelerator = "NVIDIA_TESLA_T4";
  worker.accelerator_count = 1;
  const std::string script =
      "echo procid=$SLURM_PROCID node=$SLURMD_NODENAME group1=$SLURM_JOB_NODELIST_HET_GROUP_1"
      " cuda=${CUDA_VISIBLE_DEVICES-unset} >> " +
      dir_.string() + "/out.$SLURM_PROCID";
  const std::string id = Submit(Request(
      "ty-test-het", {Component("master", 1), worker, Component("parameter_server", 1)}, script));
  ASSERT_FALSE(id.empty());

  const ClusterJobState state = WaitForPhase(id, Phase::kFinished);
  EXPECT_EQ(state.id, id);
  EXPECT_EQ(state.state, "COMPLETED") << state.reason;

  std::set<std::string> nodes;
  std::vector<std::string> group1;  // component 1's nodes, as every task was told them
  for (int procid = 0; procid < 4; ++procid) {
    const fs::path out = dir_ / ("out." + std::to_string(procid));
    ASSERT_TRUE(fs::exists(out)) << out
                                 << " missing; batch output: " << FirstLine(dir_ / "batch.out");
    std::map<std::string, std::string> fields = Fields(FirstLine(out));
    EXPECT_EQ(fields["procid"], std::to_string(procid));
    nodes.insert(fields["node"]);
    Result<std::vector<std::string>> listed = ExpandHostlist(fields["group1"]);
    ASSERT_TRUE(listed.ok()) << listed.status().message();
    if (procid == 0) {
      group1 = *listed;
    }
    EXPECT_EQ(*listed, group1) << "task " << procid;
    const bool gpu_task = procid == 1 || procid == 2;  // the worker component's two tasks
    EXPECT_EQ(std::ranges::count(group1, fields["node"]), gpu_task ? 1 : 0)
        << "task " << procid << " on " << fields["node"] << ", group 1 is " << fields["group1"];
    if (gpu_task) {
      EXPECT_NE(fields["cuda"], "unset") << "task " << procid;
      EXPECT_FALSE(fields["cuda"].empty()) << "task " << procid;
    } else {
      EXPECT_EQ(fields["cuda"], "unset") << "task " << procid;
    }
  }
  EXPECT_EQ(nodes.size(), 4U) << "tasks shared nodes";
  EXPECT_EQ(group1.size(), 2U);
}

TEST_F(SlurmBackendTest, FailingTaskFailsTheJob) {
  const std::string id =
      Submit(Request("ty-test-fail", {Component("master", 1)}, "echo about to fail; exit 3"));
  ASSERT_FALSE(id.empty());
  const ClusterJobState state = WaitForPhase(id, Phase::kFinished);
  EXPECT_EQ(state.state, "FAILED");
  EXPECT_EQ(state.reason, "NonZeroExitCode");
}

TEST_F(SlurmBackendTest, CancelEndsARunningJob) {
  const std::string id = Submit(Request("ty-test-cancel", {Component("master", 1)}, "sleep 300"));
  ASSERT_FALSE(id.empty());
  ASSERT_EQ(WaitForPhase(id, Phase::kRunning).phase, Phase::kRunning);

  const Status cancelled = backend_.Cancel(id);
  ASSERT_TRUE(cancelled.ok()) << cancelled.message();
  const ClusterJobState state = WaitForPhase(id, Phase::kFinished);
  EXPECT_EQ(state.state, "CANCELLED");

  const Status again = backend_.Cancel(id);
  EXPECT_TRUE(again.ok()) << "cancelling an ended job: " << again.message();
}

TEST_F(SlurmBackendTest, JobNoNodeCanHoldIsRefusedWithSlurmsMessage) {
  // Every node has 8 CPUs. (More CPUs than the whole partition has, 99, is not refused: Slurm
  // 22.05 with EnforcePartLimits=NO accepts it, and it pends for ever, reason PartitionConfig.)
  ComponentRequest master = Component("master", 1);
  master.cpus_per_task = 16;
  Result<std::string> id = backend_.Submit(Request("ty-test-refused", {master}, "true"));
  ASSERT_FALSE(id.ok()) << "submitted as " << *id;
  EXPECT_EQ(id.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(id.status().message().find("Requested node configuration is not available"),
            std::string::npos)
      << id.status().message();
}

TEST_F(SlurmBackendTest, UnknownIdsAreUnknown) {
  Result<std::map<std::string, ClusterJobState>> states = backend_.Query({"987654321", "42x"});
  ASSERT_TRUE(states.ok()) << states.status().message();
  ASSERT_EQ(states->size(), 2U);
  for (const auto& [id, state] : *states) {
    EXPECT_EQ(state.phase, Phase::kUnknown) << id << " is " << state.state;
    EXPECT_EQ(state.id, id);
  }
}

TEST_F(SlurmBackendTest, FinishedHetJobStillReadsFinishedOnceSqueueForgetsIt) {
  const std::string id =
      Submit(Request("ty-test-purged", {Component("master", 1), Component("worker", 1)}, "exit 0"));
  ASSERT_FALSE(id.empty());
  ASSERT_EQ(WaitForPhase(id, Phase::kFinished).state, "COMPLETED");

  // squeue forgets it MinJobAge (5 s) after the end, at the next purge: without a finished-job
  // source the backend then knows nothing of it ...
  SlurmBackend squeue_only(TestConfig(FinishedJobs::kNone));
  WaitFor(squeue_only, id, [](const ClusterJobState& s) { return s.phase == Phase::kUnknown; });

  // ... and with jobcomp (`sacct -c`) it is still finished.
  Result<std::map<std::string, ClusterJobState>> states = backend_.Query({id, "987654321"});
  ASSERT_TRUE(states.ok()) << states.status().message();
  EXPECT_EQ(states->at(id).phase, Phase::kFinished);
  EXPECT_EQ(states->at(id).state, "COMPLETED");
  EXPECT_EQ(states->at(id).id, id);
  EXPECT_EQ(states->at("987654321").phase, Phase::kUnknown);
}

TEST_F(SlurmBackendTest, QueryOfNoIdsAsksNothing) {
  Result<std::map<std::string, ClusterJobState>> states = backend_.Query({});
  ASSERT_TRUE(states.ok()) << states.status().message();
  EXPECT_TRUE(states->empty());
}

}  // namespace
}  // namespace trainyard::run::slurm
