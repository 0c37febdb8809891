// The live status line: its text (a pure function of a round's progress) and how it is drawn.
#include "cli/follow/status_line.h"

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::cli {
namespace {

using std::chrono::seconds;

const WallTime kCreated{seconds(1'700'000'000)};

struct LineCase {
  std::string name;
  model::JobState state;
  std::vector<std::string> replica_states;
  std::optional<seconds> started;  // after kCreated
  std::optional<seconds> ended;    // after kCreated
  seconds now;                     // after kCreated
  std::string line;
};

class FormatStatusLineTest : public ::testing::TestWithParam<LineCase> {};

TEST_P(FormatStatusLineTest, ShowsStateReplicasAndElapsedTime) {
  const LineCase& c = GetParam();
  FollowProgress progress{.job = {.job_id = "j", .create_time = kCreated, .state = c.state},
                          .now = kCreated + c.now};
  if (c.started) {
    progress.job.start_time = kCreated + *c.started;
  }
  if (c.ended) {
    progress.job.end_time = kCreated + *c.ended;
  }
  for (std::size_t i = 0; i < c.replica_states.size(); ++i) {
    progress.replicas.push_back({"worker-replica-" + std::to_string(i), c.replica_states[i]});
  }
  EXPECT_EQ(FormatStatusLine(progress), c.line);
}

INSTANTIATE_TEST_SUITE_P(
    Rounds, FormatStatusLineTest,
    ::testing::Values(LineCase{"AllUp",
                               model::JobState::kRunning,
                               {"RUNNING", "RUNNING", "RUNNING", "RUNNING"},
                               seconds(3),
                               std::nullopt,
                               seconds(65),
                               "RUNNING · 4/4 replicas up · 01:02"},
                      LineCase{"SomeStarting",
                               model::JobState::kRunning,
                               {"RUNNING", "STARTING", "RESTARTING", "EXITED"},
                               seconds(0),
                               std::nullopt,
                               seconds(9),
                               "RUNNING · 1/4 replicas up · 00:09"},
                      LineCase{"OneReplica",
                               model::JobState::kRunning,
                               {"RUNNING"},
                               seconds(0),
                               std::nullopt,
                               seconds(1),
                               "RUNNING · 1/1 replica up · 00:01"},
                      // Not started yet: no replicas listed, and the time counts from the creation.
                      LineCase{"Queued",
                               model::JobState::kQueued,
                               {},
                               std::nullopt,
                               std::nullopt,
                               seconds(7),
                               "QUEUED · 00:07"},
                      LineCase{"Hours",
                               model::JobState::kRunning,
                               {},
                               seconds(0),
                               std::nullopt,
                               seconds(3 * 3600 + 4 * 60 + 5),
                               "RUNNING · 3:04:05"},
                      // An ended job's time stops at its end.
                      LineCase{"Ended",
                               model::JobState::kSucceeded,
                               {},
                               seconds(10),
                               seconds(70),
                               seconds(500),
                               "SUCCEEDED · 01:00"},
                      // A server clock ahead of ours never shows a negative time.
                      LineCase{"ClockSkew",
                               model::JobState::kPreparing,
                               {},
                               seconds(30),
                               std::nullopt,
                               seconds(2),
                               "PREPARING · 00:00"}),
    [](const auto& tc) { return tc.param.name; });

TEST(StatusLine, RedrawsInPlaceAndClearsOnce) {
  std::ostringstream terminal;
  {
    StatusLine line(terminal, /*enabled=*/true);
    line.Show("QUEUED · 00:01");
    line.Show("RUNNING · 00:02");
    line.Clear();
    line.Clear();  // nothing shown: nothing to clear
    terminal << "row\n";
    line.Show("RUNNING · 00:03");
  }  // cleared when it goes away
  EXPECT_EQ(terminal.str(),
            "\r\033[KQUEUED · 00:01\r\033[KRUNNING · 00:02\r\033[Krow\n"
            "\r\033[KRUNNING · 00:03\r\033[K");
}

TEST(StatusLine, DrawsNothingWhenNotATerminal) {
  std::ostringstream terminal;
  {
    StatusLine line(terminal, /*enabled=*/false);
    line.Show("RUNNING · 00:02");
    line.Clear();
  }
  EXPECT_EQ(terminal.str(), "");
}

}  // namespace
}  // namespace trainyard::cli
