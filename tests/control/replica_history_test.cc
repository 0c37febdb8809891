// An ended job's replicas as their exit files tell it (control/replica_history.h): what kubectl
// shows as each replica's exit code once the executor has forgotten the job.
#include "control/replica_history.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"

namespace trainyard::control {
namespace {

struct ExitFileCase {
  std::string name;
  std::optional<std::string> text;  // the exit file's text; nullopt: no file
  std::optional<int> code;
};

class RecordedExitCodeTest : public ::testing::TestWithParam<ExitFileCase> {};

TEST_P(RecordedExitCodeTest, IsTheExitCodeOr128PlusTheSignal) {
  const ExitFileCase& tc = GetParam();
  const testing::TempDir dir;
  const JobLayout layout(dir.path().string(), "proj", "job1");
  if (tc.text.has_value()) {
    std::filesystem::create_directories(layout.run_dir());
    std::ofstream(layout.exit_path("master-replica-0")) << *tc.text;
  }
  EXPECT_EQ(RecordedExitCode(layout, "master-replica-0"), tc.code);
}

INSTANTIATE_TEST_SUITE_P(ExitFiles, RecordedExitCodeTest,
                         ::testing::Values(ExitFileCase{"Succeeded", "exited 0\n", 0},
                                           ExitFileCase{"Failed", "exited 3\n", 3},
                                           ExitFileCase{"Killed", "signaled 9\n", 137},
                                           ExitFileCase{"TerminatedWithEndTime",
                                                        "signaled 15\nended 2026-11-21T09:35:01Z\n",
                                                        143},
                                           ExitFileCase{"NoFile", std::nullopt, std::nullopt},
                                           ExitFileCase{"Garbled", "crashed\n", std::nullopt}),
                         [](const auto& param) { return param.param.name; });

}  // namespace
}  // namespace trainyard::control
