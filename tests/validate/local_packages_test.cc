#include "validate/local_packages.h"

#include <gtest/gtest.h>

namespace trainyard::validate {
namespace {

model::Job JobWith(std::vector<std::string> uris) {
  model::Job job;
  job.training_input.emplace();
  job.training_input->package_uris = std::move(uris);
  return job;
}

TEST(CheckLocalPackages, EveryPathPassesOnASingleUsersServer) {
  EXPECT_TRUE(CheckLocalPackages(JobWith({"/etc/shadow"}), {}).empty());
}

TEST(CheckLocalPackages, OnlyTheOperatorsDirectoriesOtherwise) {
  const LocalPackagePolicy policy{.any_path = false, .dirs = {"/srv/pkgs", "/opt/team"}};
  struct Case {
    std::string uri;
    std::string error;  // a part of the description; "" for none
  };
  for (const Case& c : std::vector<Case>{
           {"gs://bucket/trainer.tar.gz", ""},
           {"/srv/pkgs/trainer-0.1.tar.gz", ""},
           {"/opt/team/wheels/t-0.1-py3-none-any.whl", ""},
           {"/etc/shadow",
            "is outside the directories this server installs local packages "
            "from (/srv/pkgs, /opt/team)"},
           {"/srv/pkgs/../../etc/shadow", "is not a normalised path"},
           {"/srv/pkgs/./a.tar.gz", "is not a normalised path"},
           {"/srv/pkgs//a.tar.gz", "is not a normalised path"},
           {"/srv/pkgs2/a.tar.gz", "is outside"},
       }) {
    const std::vector<FieldViolation> got =
        CheckLocalPackages(JobWith({"gs://b/first.tar.gz", c.uri}), policy);
    if (c.error.empty()) {
      EXPECT_TRUE(got.empty()) << c.uri;
      continue;
    }
    ASSERT_EQ(got.size(), 1U) << c.uri;
    EXPECT_EQ(got[0].field, "trainingInput.packageUris[1]");
    EXPECT_NE(got[0].description.find("'" + c.uri + "'"), std::string::npos);
    EXPECT_NE(got[0].description.find(c.error), std::string::npos) << got[0].description;
  }
}

TEST(CheckLocalPackages, NoDirectoriesMeansNoLocalPackages) {
  const std::vector<FieldViolation> got =
      CheckLocalPackages(JobWith({"/srv/pkgs/a.tar.gz"}), {.any_path = false});
  ASSERT_EQ(got.size(), 1U);
  EXPECT_NE(got[0].description.find("installs no local packages"), std::string::npos);
}

}  // namespace
}  // namespace trainyard::validate
