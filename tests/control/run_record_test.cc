// The run record survives a round trip through its file byte for byte in meaning, and a damaged
// file is refused with a message rather than half-read.
#include "control/run_record.h"

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "base/time_format.h"
#include "fakes/temp_dir.h"

namespace trainyard::control {
namespace {

RunRecord Sample() {
  RunRecord record;
  RunRecord::Replica master;
  master.task_name = "master-replica-0";
  master.pid = 4242;
  master.restarts = 2;
  master.seconds = 12.5;
  master.started = ParseTimestamp("2026-11-21T09:35:01.760285Z");
  master.spec.argv = {"/usr/bin/python3", "-m", "trainer.task", "--lr=0.1"};
  master.spec.env = {{"TF_CONFIG", R"({"cluster":{"master":["127.0.0.1:2222"]}})"},
                     {"CUDA_VISIBLE_DEVICES", "0,1"}};
  master.spec.working_dir = "/data/jobs/p/j/master-replica-0";
  master.spec.log_path = "/data/jobs/p/j/logs/master-replica-0.log";
  master.spec.exit_path = "/data/jobs/p/j/run/master-replica-0.exit";
  master.node = 0;
  master.device_indices = {0, 1};
  master.cpus = 4;
  master.memory_mib = 15360;
  RunRecord::Replica worker;
  worker.task_name = "worker-replica-0";  // not started yet: no pid, no start time
  record.replicas = {master, worker};
  return record;
}

TEST(RunRecordTest, RoundTripsThroughItsFile) {
  testing::TempDir dir;
  const std::string path = dir.File("run/replicas.json");
  ASSERT_TRUE(WriteRunRecord(path, Sample()).ok());
  const Result<RunRecord> read = ReadRunRecord(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->replicas.size(), 2U);
  const RunRecord::Replica& master = read->replicas[0];
  const RunRecord sample = Sample();
  const RunRecord::Replica& expected = sample.replicas[0];
  EXPECT_EQ(master.task_name, expected.task_name);
  EXPECT_EQ(master.pid, 4242);
  EXPECT_EQ(master.restarts, 2);
  EXPECT_DOUBLE_EQ(master.seconds, 12.5);
  EXPECT_EQ(master.started, expected.started);
  EXPECT_EQ(master.spec.argv, expected.spec.argv);
  EXPECT_EQ(master.spec.env, expected.spec.env);
  EXPECT_EQ(master.spec.working_dir, expected.spec.working_dir);
  EXPECT_EQ(master.spec.log_path, expected.spec.log_path);
  EXPECT_EQ(master.spec.exit_path, expected.spec.exit_path);
  EXPECT_EQ(master.device_indices, expected.device_indices);
  EXPECT_EQ(master.cpus, 4);
  EXPECT_EQ(master.memory_mib, 15360);
  EXPECT_EQ(read->replicas[1].pid, 0);
  EXPECT_FALSE(read->replicas[1].started.has_value());
}

TEST(RunRecordTest, KeepsAContainerReplicasWholeSpec) {
  testing::TempDir dir;
  const std::string path = dir.File("run/replicas.json");
  RunRecord record = Sample();
  record.replicas[0].spec.argv.clear();
  record.replicas[0].spec.container = run::ContainerSpec{
      .image = "127.0.0.1:5000/team/trainer:1",
      .entrypoint = {"python3", "-m", "trainer.task"},
      .args = {"--job-dir", "/data/buckets/b/out"},
      .name = "trainyard-p-j-master-replica-0",
      .labels = {{"trainyard.job", "j"}, {"trainyard.task", "master-replica-0"}},
      .mounts = {run::Mount{.source = "/data/buckets", .target = "/gcs"},
                 run::Mount{.source = "/opt/py", .target = "/opt/py", .read_only = true}},
      .device_indices = {0, 1},
      .working_dir = "/home/trainer",
      .hosts = {{"mnist-chief-0.team-a.svc", "127.0.0.1"}, {"mnist-chief-0", "127.0.0.1"}}};
  ASSERT_TRUE(WriteRunRecord(path, record).ok());
  const Result<RunRecord> read = ReadRunRecord(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->replicas[0].spec.container, record.replicas[0].spec.container);
  EXPECT_FALSE(read->replicas[1].spec.container.has_value());
}

TEST(RunRecordTest, KeepsAReplicasView) {
  testing::TempDir dir;
  const std::string path = dir.File("run/replicas.json");
  RunRecord record = Sample();
  record.replicas[0].spec.view = run::FileView{.hidden = "/data",
                                               .writable = {"/data/buckets/b", "/data/jobs/p/j"},
                                               .readable = {"/data/packages/abc"},
                                               .private_dirs = {"/tmp", "/home/u"}};
  ASSERT_TRUE(WriteRunRecord(path, record).ok());
  const Result<RunRecord> read = ReadRunRecord(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->replicas[0].spec.view, record.replicas[0].spec.view);
  EXPECT_FALSE(read->replicas[1].spec.view.has_value());
}

TEST(RunRecordTest, RewritingReplacesTheWholeFile) {
  testing::TempDir dir;
  const std::string path = dir.File("replicas.json");
  ASSERT_TRUE(WriteRunRecord(path, Sample()).ok());
  RunRecord smaller;
  smaller.replicas.push_back(Sample().replicas[1]);
  ASSERT_TRUE(WriteRunRecord(path, smaller).ok());
  EXPECT_EQ(ReadRunRecord(path)->replicas.size(), 1U);
}

TEST(RunRecordTest, MissingFileIsNotFound) {
  testing::TempDir dir;
  EXPECT_EQ(ReadRunRecord(dir.File("absent.json")).status().code(), Code::kNotFound);
}

struct BadRecord {
  std::string name;
  std::string text;
};

class RunRecordBadTest : public ::testing::TestWithParam<BadRecord> {};

TEST_P(RunRecordBadTest, IsRefusedSayingItIsNotARunRecord) {
  const Result<RunRecord> decoded = DecodeRunRecord(GetParam().text);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), Code::kInvalidArgument);
  EXPECT_NE(decoded.status().message().find("Not a run record"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Damaged, RunRecordBadTest,
    ::testing::Values(BadRecord{"Truncated", R"({"replicas":[{"taskName":"m)"},
                      BadRecord{"NoReplicas", R"({})"},
                      BadRecord{"MissingPid", R"({"replicas":[{"taskName":"m"}]})"},
                      BadRecord{"BadStartTime",
                                R"({"replicas":[{"taskName":"m","pid":1,"restarts":0,"seconds":0,
                                "argv":[],"env":[],"workingDir":"","logPath":"","exitPath":"",
                                "node":0,"deviceIndices":[],"cpus":1,"memoryMib":1,
                                "started":"yesterday"}]})"},
                      BadRecord{"Empty", ""}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::control
