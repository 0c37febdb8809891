// The launch file and the started file of cluster runs (agent/batch_launch.h): round trips,
// atomic writes, and what bad input answers.
#include "agent/batch_launch.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "support/sample_jobs.h"

namespace trainyard::agent {
namespace {

using testing::TempDir;

BatchLaunch FullLaunch() {
  BatchLaunch launch;
  launch.job = testing::ValidRuntimeJob("job_1");
  launch.job.training_input->args = {"--epochs", "3"};
  launch.project = "proj";
  launch.trial_id = "4";
  launch.data_dir = "/shared/trainyard";
  launch.context.job_id = "job_1";
  launch.context.trial_id = "4";
  launch.context.hp_metric_tag = "accuracy";
  launch.context.hp_metric_dir = "/shared/trainyard/jobs/proj/job_1/trial-4/hypertune";
  launch.context.trial_args = {"--lr=0.1", "--layers=3"};
  launch.context.python = "/usr/bin/python3.11";
  launch.context.pythonpath = "/shared/pkgs:/opt/rt";
  launch.context.gcs_mount = "/shared/buckets";
  launch.context.storage_emulator_host = "http://10.0.0.1:8470";
  launch.context.access_token = "tyj.cA.ag.mac";
  launch.context.pytorch_master_port = 0;
  launch.first_port = 31000;
  launch.node_addresses = {{"n1", "10.0.0.1"}, {"n2", "10.0.0.2"}};
  launch.supervisor = "/opt/ty/bin/trainyard-replica";
  launch.restart = {.max_restarts = 5,
                    .initial_backoff = std::chrono::milliseconds(250),
                    .max_backoff = std::chrono::milliseconds(8000)};
  return launch;
}

void ExpectSameLaunch(const BatchLaunch& got, const BatchLaunch& want) {
  EXPECT_EQ(got.job.job_id, want.job.job_id);
  EXPECT_EQ(got.job.training_input, want.job.training_input);
  EXPECT_EQ(got.project, want.project);
  EXPECT_EQ(got.trial_id, want.trial_id);
  EXPECT_EQ(got.data_dir, want.data_dir);
  EXPECT_EQ(got.context.job_id, want.context.job_id);
  EXPECT_EQ(got.context.trial_id, want.context.trial_id);
  EXPECT_EQ(got.context.hp_metric_tag, want.context.hp_metric_tag);
  EXPECT_EQ(got.context.hp_metric_dir, want.context.hp_metric_dir);
  EXPECT_EQ(got.context.trial_args, want.context.trial_args);
  EXPECT_EQ(got.context.python, want.context.python);
  EXPECT_EQ(got.context.pythonpath, want.context.pythonpath);
  EXPECT_EQ(got.context.gcs_mount, want.context.gcs_mount);
  EXPECT_EQ(got.context.storage_emulator_host, want.context.storage_emulator_host);
  EXPECT_EQ(got.context.access_token, want.context.access_token);
  EXPECT_EQ(got.first_port, want.first_port);
  EXPECT_EQ(got.node_addresses, want.node_addresses);
  EXPECT_EQ(got.supervisor, want.supervisor);
  EXPECT_EQ(got.restart.max_restarts, want.restart.max_restarts);
  EXPECT_EQ(got.restart.initial_backoff, want.restart.initial_backoff);
  EXPECT_EQ(got.restart.max_backoff, want.restart.max_backoff);
}

TEST(BatchLaunchTest, EncodeDecodeRoundTrips) {
  const BatchLaunch launch = FullLaunch();
  const Result<BatchLaunch> decoded = DecodeBatchLaunch(EncodeBatchLaunch(launch));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ExpectSameLaunch(*decoded, launch);
}

TEST(BatchLaunchTest, PlainJobWithoutTrialOrAddressesRoundTrips) {
  BatchLaunch launch;
  launch.job = testing::ValidRuntimeJob("plain");
  launch.project = "p";
  launch.data_dir = "/d";
  launch.first_port = 20000;
  const Result<BatchLaunch> decoded = DecodeBatchLaunch(EncodeBatchLaunch(launch));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ExpectSameLaunch(*decoded, launch);
  EXPECT_TRUE(decoded->node_addresses.empty());
}

TEST(BatchLaunchTest, WriteThenReadRoundTripsAndCreatesTheDirectory) {
  const TempDir dir;
  const std::string path = (dir.path() / "jobs/p/j/run/launch.json").string();
  ASSERT_TRUE(WriteBatchLaunch(path, FullLaunch()).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp")) << "written atomically";
  const Result<BatchLaunch> read = ReadBatchLaunch(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectSameLaunch(*read, FullLaunch());
}

TEST(BatchLaunchTest, MissingFileIsNotFound) {
  const TempDir dir;
  EXPECT_EQ(ReadBatchLaunch(dir.File("none.json")).status().code(), Code::kNotFound);
}

TEST(BatchLaunchTest, AFileWhereTheDirectoryShouldBeIsAFailedPrecondition) {
  const TempDir dir;
  std::ofstream(dir.File("file")) << "x";  // a file where a directory should be (ENOTDIR)
  EXPECT_EQ(WriteBatchLaunch(dir.File("file") + "/launch.json", FullLaunch()).code(),
            Code::kFailedPrecondition);
}

struct BadCase {
  std::string name;
  std::string text;
  std::string says;  // a part of the message
};

class BatchLaunchBadInputTest : public ::testing::TestWithParam<BadCase> {};

// The encoded full launch with `key`'s value replaced by `value` (JSON text).
std::string Replaced(std::string_view key, std::string_view value) {
  std::string text = EncodeBatchLaunch(FullLaunch());
  const std::string quoted = "\"" + std::string(key) + "\": ";
  const std::size_t at = text.find(quoted);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no " << key << " in " << text;
    return text;
  }
  const std::size_t start = at + quoted.size();
  std::size_t end = start;
  int depth = 0;
  for (; end < text.size(); ++end) {
    const char c = text[end];
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) {
        break;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      break;
    }
  }
  return text.replace(start, end - start, value);
}

TEST_P(BatchLaunchBadInputTest, IsInvalidArgumentSayingWhy) {
  const Result<BatchLaunch> decoded = DecodeBatchLaunch(GetParam().text);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), Code::kInvalidArgument);
  EXPECT_NE(decoded.status().message().find("Not a launch file"), std::string::npos)
      << decoded.status().message();
  EXPECT_NE(decoded.status().message().find(GetParam().says), std::string::npos)
      << decoded.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, BatchLaunchBadInputTest,
    ::testing::Values(
        BadCase{.name = "Empty", .text = "", .says = ""},
        BadCase{.name = "NotJson", .text = "launch: yes", .says = ""},
        BadCase{.name = "NotAnObject", .text = "[1, 2]", .says = ""},
        BadCase{.name = "NoJob", .text = Replaced("job", "null"), .says = ""},
        BadCase{.name = "JobWithoutTrainingInput",
                .text = Replaced("job", R"({"jobId": "j"})"),
                .says = "trainingInput"},
        BadCase{.name = "PortNotANumber", .text = Replaced("firstPort", R"("20000")"), .says = ""},
        BadCase{.name = "AddressNotAString",
                .text = Replaced("nodeAddresses", R"({"n1": 1})"),
                .says = ""},
        BadCase{
            .name = "NoRestartPolicy", .text = Replaced("restart", "{}"), .says = "maxRestarts"},
        BadCase{.name = "ContextWithoutPython",
                .text = Replaced("context", R"({"jobId": "j"})"),
                .says = ""}),
    [](const auto& tc) { return tc.param.name; });

TEST(TaskStartedTest, EncodeDecodeRoundTrips) {
  const TaskStarted started{.node = "gpu-n7", .host = "10.1.2.7", .pid = 31337, .restarts = 2};
  const Result<TaskStarted> decoded = DecodeTaskStarted(EncodeTaskStarted(started));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->node, "gpu-n7");
  EXPECT_EQ(decoded->host, "10.1.2.7");
  EXPECT_EQ(decoded->pid, 31337);
  EXPECT_EQ(decoded->restarts, 2);
}

class TaskStartedBadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(TaskStartedBadInputTest, IsInvalidArgument) {
  const Result<TaskStarted> decoded = DecodeTaskStarted(GetParam().text);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), Code::kInvalidArgument);
  EXPECT_NE(decoded.status().message().find("Not a started file"), std::string::npos)
      << decoded.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, TaskStartedBadInputTest,
    ::testing::Values(
        BadCase{.name = "Empty", .text = ""},
        BadCase{.name = "Truncated", .text = R"({"node": "n1", "host": "10.0.0.1", "pi)"},
        BadCase{.name = "NoRestarts", .text = R"({"node": "n1", "host": "h", "pid": 3})"},
        BadCase{.name = "PidNotANumber",
                .text = R"({"node": "n1", "host": "h", "pid": "3", "restarts": 0})"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::agent
