// The permission table (access/data/roles.json): every permission against every role, stated
// here independently of the data, so a change to either is a failing test until both agree.
#include "access/roles.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "access/principal.h"

namespace trainyard::access {
namespace {

// Which roles hold each permission: V viewer, E editor, A admin.
const std::map<std::string, std::string> kExpected = {
    {"ml.jobs.get", "VEA"},
    {"ml.jobs.list", "VEA"},
    {"ml.jobs.create", "EA"},
    {"ml.jobs.update", "EA"},
    {"ml.jobs.cancel", "EA"},
    {"ml.jobs.suspend", "EA"},
    {"ml.projects.getConfig", "VEA"},
    {"aiplatform.customJobs.get", "VEA"},
    {"aiplatform.customJobs.list", "VEA"},
    {"aiplatform.customJobs.create", "EA"},
    {"aiplatform.customJobs.cancel", "EA"},
    {"aiplatform.hyperparameterTuningJobs.get", "VEA"},
    {"aiplatform.hyperparameterTuningJobs.list", "VEA"},
    {"aiplatform.hyperparameterTuningJobs.create", "EA"},
    {"aiplatform.hyperparameterTuningJobs.cancel", "EA"},
    {"logging.logEntries.list", "VEA"},
    {"storage.buckets.list", "VEA"},
    {"storage.buckets.get", "VEA"},
    {"storage.buckets.create", "EA"},
    {"storage.buckets.delete", "EA"},
    {"storage.buckets.update", "EA"},
    {"storage.objects.list", "VEA"},
    {"storage.objects.get", "VEA"},
    {"storage.objects.create", "EA"},
    {"storage.objects.delete", "EA"},
    {"storage.objects.update", "EA"},
    {"trainyard.metrics.get", "A"},
    {"trainyard.quotas.get", "VEA"},
    {"trainyard.quotas.list", "VEA"},
    {"trainyard.quotas.update", "A"},
    {"trainyard.quotas.delete", "A"},
    {"trainyard.priorityClasses.list", "VEA"},
    {"trainyard.priorityClasses.update", "A"},
    {"trainyard.priorityClasses.delete", "A"},
};

char Letter(Role role) {
  return static_cast<char>(std::toupper(RoleName(role)[0]));
}

TEST(RolesTest, EveryPermissionIsHeldByExactlyTheExpectedRoles) {
  ASSERT_EQ(AllPermissions().size(), kExpected.size());
  for (const std::string& permission : AllPermissions()) {
    ASSERT_TRUE(kExpected.contains(permission)) << permission;
    for (const Role role : AllRoles()) {
      const bool expected = kExpected.at(permission).find(Letter(role)) != std::string::npos;
      EXPECT_EQ(RoleHolds(role, permission), expected) << RoleName(role) << " " << permission;
    }
  }
}

TEST(RolesTest, UnknownPermissionsAreHeldByNobody) {
  for (const Role role : AllRoles()) {
    EXPECT_FALSE(RoleHolds(role, "ml.jobs.delete"));
    EXPECT_FALSE(RoleHolds(role, ""));
  }
  EXPECT_FALSE(IsKnownPermission("ml.jobs.delete"));
  EXPECT_TRUE(IsKnownPermission("ml.jobs.get"));
}

TEST(RolesTest, OnlyAdminSpansProjects) {
  EXPECT_FALSE(RoleSpansProjects(Role::kViewer));
  EXPECT_FALSE(RoleSpansProjects(Role::kEditor));
  EXPECT_TRUE(RoleSpansProjects(Role::kAdmin));
}

TEST(RolesTest, NamesRoundTrip) {
  for (const Role role : AllRoles()) {
    EXPECT_EQ(ParseRole(RoleName(role)), role);
  }
  EXPECT_EQ(ParseRole("Editor"), std::nullopt);
  EXPECT_EQ(ParseRole("owner"), std::nullopt);
  EXPECT_EQ(ParseRole(""), std::nullopt);
}

// Every permission × role × project: the grant's own project, another one, and what spans
// projects ("").
TEST(RolesTest, AllowsFollowsRoleAndProject) {
  for (const Role role : AllRoles()) {
    Result<std::vector<Grant>> grants = GrantsFor(
        role, RoleSpansProjects(role) ? std::vector<std::string>{} : std::vector<std::string>{"p"});
    ASSERT_TRUE(grants.ok());
    const Principal principal{.name = "u", .grants = *grants};
    for (const std::string& permission : AllPermissions()) {
      const bool holds = RoleHolds(role, permission);
      const bool spans = RoleSpansProjects(role);
      EXPECT_EQ(Allows(principal, permission, "p"), holds) << RoleName(role) << permission;
      EXPECT_EQ(Allows(principal, permission, "q"), holds && spans) << RoleName(role) << permission;
      EXPECT_EQ(Allows(principal, permission, ""), holds && spans) << RoleName(role) << permission;
    }
  }
}

TEST(RolesTest, GrantsInSeveralProjectsAddUp) {
  const Principal principal{.name = "u", .grants = {{Role::kViewer, "a"}, {Role::kEditor, "b"}}};
  EXPECT_TRUE(Allows(principal, "ml.jobs.get", "a"));
  EXPECT_FALSE(Allows(principal, "ml.jobs.create", "a"));
  EXPECT_TRUE(Allows(principal, "ml.jobs.create", "b"));
  EXPECT_FALSE(Allows(principal, "ml.jobs.get", "c"));
  EXPECT_FALSE(Allows(Principal{.name = "nobody"}, "ml.jobs.get", "a"));
}

}  // namespace
}  // namespace trainyard::access
