// `trainyard quota …` and `trainyard priority-class …` (issue #34) end to end: `cli::Run` against
// the real server on 127.0.0.1:0 with tokens, as an admin and as a viewer.
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "access/principal.h"
#include "cli/commands/commands.h"
#include "cli/outcome.h"
#include "integration/live_server.h"

namespace trainyard::cli {
namespace {

using ::testing::HasSubstr;
using testing::Outcome;

class SharingCliTest : public ::testing::Test {
 protected:
  SharingCliTest() {
    const SystemClock clock;
    admin_ = *server_.tokens().Create({.name = "admin",
                                       .grants = *access::GrantsFor(access::Role::kAdmin, {}),
                                       .create_time = clock.Now()});
    viewer_ =
        *server_.tokens().Create({.name = "viewer",
                                  .grants = *access::GrantsFor(access::Role::kViewer, {"proj"}),
                                  .create_time = clock.Now()});
  }

  Outcome Cli(const std::vector<std::string>& args, const std::string& token) {
    std::ostringstream out;
    std::ostringstream err;
    const Environment env{.server = fmt::format("http://127.0.0.1:{}/", server_.port()),
                          .project = "proj",
                          .region = "us-central1",
                          .token = token};
    const int rc = cli::Run(args, out, err, env);
    return {rc, out.str(), err.str()};
  }

  testing::LiveServer server_{{}, /*check_tokens=*/true};
  std::string admin_;
  std::string viewer_;
};

TEST_F(SharingCliTest, AnAdminSetsListsDescribesAndDeletesAQuota) {
  const Outcome set = Cli({"quota", "set", "proj", "--accelerator", "NVIDIA_TESLA_T4=4", "--cpus",
                           "64", "--memory", "256Gi", "--jobs", "20", "--weight", "2"},
                          admin_);
  ASSERT_EQ(set.rc, 0) << set.err;
  const std::string described =
      "project: proj\naccelerators:\n  NVIDIA_TESLA_T4: 4\ncpus: 64\nmemory: 256Gi\njobs: 20\n"
      "weight: 2\n";
  EXPECT_EQ(set.out, described);
  EXPECT_EQ(Cli({"quota", "describe", "proj"}, viewer_).out, described);
  const Outcome listed = Cli({"quota", "list"}, viewer_);
  ASSERT_EQ(listed.rc, 0) << listed.err;
  EXPECT_EQ(listed.out,
            "PROJECT  ACCELERATORS       CPUS  MEMORY  JOBS  WEIGHT\n"
            "proj     NVIDIA_TESLA_T4=4  64    256Gi   20    2\n");

  const Outcome denied = Cli({"quota", "set", "proj", "--cpus", "1"}, viewer_);
  EXPECT_EQ(denied.rc, 1);
  EXPECT_THAT(denied.err, HasSubstr("PERMISSION_DENIED"));
  const Outcome bad = Cli({"quota", "set", "proj", "--cpus", "-1", "--weight", "0"}, admin_);
  EXPECT_EQ(bad.rc, 1);
  EXPECT_THAT(bad.err, HasSubstr("INVALID_ARGUMENT"));
  EXPECT_THAT(bad.err, HasSubstr("weight"));
  const Outcome malformed = Cli({"quota", "set", "proj", "--accelerator", "T4"}, admin_);
  EXPECT_EQ(malformed.rc, 1);
  EXPECT_THAT(malformed.err, HasSubstr("expected TYPE=N"));
  EXPECT_EQ(Cli({"quota", "describe", "proj"}, viewer_).out, described);

  EXPECT_EQ(Cli({"quota", "delete", "proj"}, admin_).rc, 0);
  EXPECT_EQ(Cli({"quota", "describe", "proj"}, viewer_).out,
            "project: proj\naccelerators: {}\ncpus: unlimited\nmemory: unlimited\njobs: "
            "unlimited\nweight: 1\n");
  EXPECT_THAT(Cli({"quota", "delete", "proj"}, admin_).err, HasSubstr("NOT_FOUND"));
}

TEST_F(SharingCliTest, PriorityClassesAndARefusedSubmit) {
  ASSERT_EQ(Cli({"priority-class", "set", "high", "900"}, admin_).rc, 0);
  EXPECT_EQ(Cli({"priority-class", "list"}, viewer_).out, "NAME  VALUE\nhigh  900\n");
  EXPECT_THAT(Cli({"priority-class", "set", "high", "x"}, admin_).err, HasSubstr("value"));
  EXPECT_EQ(Cli({"priority-class", "delete", "high"}, admin_).rc, 0);
  EXPECT_EQ(Cli({"priority-class", "list"}, viewer_).out, "NAME  VALUE\n");

  ASSERT_EQ(Cli({"quota", "set", "proj", "--cpus", "2"}, admin_).rc, 0);
  const Outcome submitted =
      Cli({"jobs", "submit", "training", "big", "--packages", "gs://bkt1/trainer.tar.gz",
           "--module-name", "trainer.task", "--runtime-version", "2.11"},
          admin_);
  EXPECT_EQ(submitted.rc, 1);
  EXPECT_THAT(submitted.err, HasSubstr("RESOURCE_EXHAUSTED"));
  EXPECT_THAT(submitted.err, HasSubstr("aiplatform.googleapis.com/custom_model_training_cpus"));
}

}  // namespace
}  // namespace trainyard::cli
