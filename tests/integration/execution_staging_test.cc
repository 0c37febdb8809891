// Staging for real. Jobs whose code cannot run: a package pip cannot install, a package URI with
// nothing behind it, and a module the package lacks; each ends FAILED with a message that says
// why, as AI Platform's errorMessage does. And the package cache: a second job with the same
// package uses the first one's install.
#include <filesystem>
#include <ostream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "control/job_layout.h"
#include "integration/executing_server.h"

namespace trainyard::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

enum class Package {
  kTrainer,      // the yard_trainer sdist (ExecutionTest's package_uri())
  kNotATarball,  // bytes that are no archive at all
  kBrokenSetup,  // a tarball whose setup.py raises
  kMissing,      // a URI with no object behind it
};

struct StagingCase {
  std::string name;
  Package package;
  std::string module;
  std::string message_prefix;
  std::string message_part;
  bool replica_started;  // whether a replica ran (the package installed)
};

void PrintTo(const StagingCase& c, std::ostream* os) {
  *os << c.name;
}

class StagingTest : public ExecutionTest, public ::testing::WithParamInterface<StagingCase> {
 protected:
  // The package URI of the case, uploading what it names.
  std::string PackageUri(Package package) {
    switch (package) {
      case Package::kTrainer:
        return package_uri();
      case Package::kNotATarball:
        server_.Upload("bkt", "packages/garbage-0.1.tar.gz", "this is not a tarball\n");
        return "gs://bkt/packages/garbage-0.1.tar.gz";
      case Package::kBrokenSetup:
        server_.Upload("bkt", "packages/broken-0.1.tar.gz", PackTrainerDir("broken"));
        return "gs://bkt/packages/broken-0.1.tar.gz";
      case Package::kMissing:
        return "gs://bkt/missing.tar.gz";
    }
    return {};
  }
};

TEST_P(StagingTest, JobFailsWithTheReason) {
  const StagingCase& c = GetParam();
  server_.Submit(RuntimeJob("staging_1", c.module, PackageUri(c.package)));

  const nlohmann::json job = server_.WaitForState("staging_1");
  ASSERT_EQ(job["state"], "FAILED") << job.dump();
  const std::string message = job.value("errorMessage", "");
  EXPECT_THAT(message, StartsWith(c.message_prefix));
  EXPECT_THAT(message, HasSubstr(c.message_part));
  EXPECT_TRUE(job.contains("startTime") && job.contains("endTime")) << job.dump();
  EXPECT_EQ(server_.ReplicaPids("staging_1").empty(), !c.replica_started);
  for (int pid : server_.ReplicaPids("staging_1")) {
    EXPECT_FALSE(ProcessAlive(pid)) << pid;
  }
}

INSTANTIATE_TEST_SUITE_P(
    BadCode, StagingTest,
    ::testing::Values(StagingCase{"NotATarball", Package::kNotATarball, "trainer.hello",
                                  "Failed to install packages: ", "not a gzip file", false},
                      StagingCase{"SetupPyRaises", Package::kBrokenSetup, "trainer.hello",
                                  "Failed to install packages: ",
                                  "RuntimeError: this setup.py is broken on purpose", false},
                      StagingCase{"MissingPackage", Package::kMissing, "trainer.hello",
                                  "Package gs://bkt/missing.tar.gz not found.", "", false},
                      StagingCase{"MissingModule", Package::kTrainer, "trainer.nope",
                                  "The replica master 0 exited with a non-zero status of 1.",
                                  "No module named trainer.nope", true}),
    [](const auto& tc) { return tc.param.name; });

using PackageCacheTest = ExecutionTest;

TEST_F(PackageCacheTest, LaterJobsWithTheSamePackageUseTheFirstOnesInstall) {
  server_.Submit(RuntimeJob("cache_1", "trainer.hello", package_uri()));
  ASSERT_EQ(server_.WaitForState("cache_1")["state"], "SUCCEEDED");
  server_.Submit(RuntimeJob("cache_2", "trainer.hello", package_uri()));
  ASSERT_EQ(server_.WaitForState("cache_2")["state"], "SUCCEEDED");

  const std::string first = ReadFile(server_.Layout("cache_1").staging_log()).value_or("");
  const std::string second = ReadFile(server_.Layout("cache_2").staging_log()).value_or("");
  EXPECT_THAT(first, HasSubstr("Unpacked yard_trainer-0.1"));
  EXPECT_THAT(first, HasSubstr("Installed packages in cache entry"));
  EXPECT_THAT(second, StartsWith("Using installed packages in cache entry")) << second;
  const std::filesystem::path entry =
      std::filesystem::read_symlink(server_.Layout("cache_1").packages_dir());
  EXPECT_EQ(std::filesystem::read_symlink(server_.Layout("cache_2").packages_dir()), entry);

  // A restarted server keeps the entry and removes what a crashed install left.
  const std::filesystem::path crashed = entry.string() + ".tmp-1-0";
  std::filesystem::create_directories(crashed / "half");
  server_.Restart();
  EXPECT_FALSE(std::filesystem::exists(crashed));
  server_.Submit(RuntimeJob("cache_3", "trainer.hello", package_uri()));
  ASSERT_EQ(server_.WaitForState("cache_3")["state"], "SUCCEEDED");
  EXPECT_THAT(ReadFile(server_.Layout("cache_3").staging_log()).value_or(""),
              StartsWith("Using installed packages in cache entry"));
}

}  // namespace
}  // namespace trainyard::testing
