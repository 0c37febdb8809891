// ml v1 getConfig's identities of a project: a 12-digit stand-in number that stays the same for
// the same id (clients may have stored it), and the two service accounts built from the id and
// the number.
#include "access/project_identity.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace trainyard::access {
namespace {

TEST(ProjectIdentityTest, EachProjectHasItsStableNumberAndAccounts) {
  const struct {
    std::string_view project;
    std::string_view number;  // what servers have always answered: must not change
  } cases[] = {
      {"my-proj", "253589482369"},
      {"p", "992253321583"},
      {"example.com:proj", "113213628127"},
      {"", "839346656037"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.project);
    EXPECT_EQ(ProjectNumber(c.project), c.number);
    const ProjectIdentity identity = IdentityOf(c.project);
    EXPECT_EQ(identity.number, c.number);
    EXPECT_EQ(identity.service_account,
              "trainyard@" + std::string(c.project) + ".iam.gserviceaccount.com");
    EXPECT_EQ(identity.tpu_service_account,
              "service-" + std::string(c.number) + "@cloud-tpu.iam.gserviceaccount.com");
  }
}

TEST(ProjectIdentityTest, NumbersHaveTwelveDigitsAndDifferByProject) {
  const std::string_view projects[] = {"a", "b", "ml-team", "ml-team2", "x.y:z", "0"};
  for (const std::string_view project : projects) {
    const std::string number = ProjectNumber(project);
    EXPECT_EQ(number.size(), 12U) << project;
    EXPECT_EQ(number.find_first_not_of("0123456789"), std::string::npos) << project;
    EXPECT_NE(number[0], '0') << project;
    for (const std::string_view other : projects) {
      if (other != project) {
        EXPECT_NE(ProjectNumber(other), number) << project << " and " << other;
      }
    }
  }
}

}  // namespace
}  // namespace trainyard::access
