#include "run/local/spawn.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakes/temp_dir.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;
using ::trainyard::testing::TempDir;

TEST(MergeEnvironment, OverridesInPlaceAndAppendsNewNames) {
  Environment merged = MergeEnvironment({{"PATH", "/bin"}, {"HOME", "/root"}, {"A", "1"}},
                                        {{"HOME", "/job"}, {"NEW", "x"}, {"NEW", "y"}});
  EXPECT_EQ(merged, (Environment{{"PATH", "/bin"}, {"HOME", "/job"}, {"A", "1"}, {"NEW", "y"}}));
}

TEST(MergeEnvironment, EmptyOverrideValueIsKept) {
  EXPECT_EQ(MergeEnvironment({{"CUDA_VISIBLE_DEVICES", "0,1"}}, {{"CUDA_VISIBLE_DEVICES", ""}}),
            (Environment{{"CUDA_VISIBLE_DEVICES", ""}}));
}

TEST(EnvValue, ReturnsFallbackOnlyWhenUnset) {
  Environment env{{"SET", "v"}, {"EMPTY", ""}};
  EXPECT_EQ(EnvValue(env, "SET", "f"), "v");
  EXPECT_EQ(EnvValue(env, "EMPTY", "f"), "");
  EXPECT_EQ(EnvValue(env, "UNSET", "f"), "f");
}

TEST(CurrentEnvironment, SeesThisProcessVariables) {
  ASSERT_EQ(setenv("TY_SPAWN_TEST_VAR", "seen=yes", 1), 0);
  EXPECT_EQ(EnvValue(CurrentEnvironment(), "TY_SPAWN_TEST_VAR"), "seen=yes");
  unsetenv("TY_SPAWN_TEST_VAR");
}

// A directory with bin/tool (executable), bin/data (not executable), other/tool (executable),
// bin/subdir (a directory).
class FindProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "bin" / "subdir");
    fs::create_directories(dir_.path() / "other");
    Write("bin/tool", fs::perms::owner_all);
    Write("other/tool", fs::perms::owner_all);
    Write("bin/data", fs::perms::owner_read | fs::perms::owner_write);
    Write("other/data", fs::perms::owner_all);
  }
  void Write(const std::string& name, fs::perms perms) {
    std::ofstream(dir_.File(name)) << "#!/bin/sh\n";
    fs::permissions(dir_.File(name), perms);
  }
  std::string Bin() const { return dir_.File("bin"); }
  std::string Other() const { return dir_.File("other"); }

  TempDir dir_;
};

TEST_F(FindProgramTest, TakesTheFirstExecutableOnPath) {
  Result<std::string> found = FindProgram("tool", Other() + ":" + Bin(), "");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, Other() + "/tool");
}

TEST_F(FindProgramTest, SkipsEmptyEntriesAndNonExecutableMatches) {
  Result<std::string> found = FindProgram("data", "::" + Bin() + "::" + Other(), "");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, Other() + "/data");
}

TEST_F(FindProgramTest, MissingProgramIsNotFoundOnPath) {
  Result<std::string> found = FindProgram("python9", Bin() + ":" + Other(), "");
  EXPECT_EQ(found.status(), Status::FailedPrecondition("Cannot run python9: not found on PATH"));
}

TEST_F(FindProgramTest, OnlyNonExecutableMatchIsReported) {
  Result<std::string> found = FindProgram("data", Bin(), "");
  EXPECT_EQ(found.status(),
            Status::FailedPrecondition("Cannot run data: " + Bin() + "/data is not executable"));
}

TEST_F(FindProgramTest, DirectoryOnPathIsNotAProgram) {
  EXPECT_EQ(FindProgram("subdir", Bin(), "").status(),
            Status::FailedPrecondition("Cannot run subdir: not found on PATH"));
}

TEST_F(FindProgramTest, PathWithSlashIsUsedAsIs) {
  Result<std::string> found = FindProgram(Bin() + "/tool", "", "");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, Bin() + "/tool");
}

TEST_F(FindProgramTest, RelativePathIsAgainstTheWorkingDir) {
  Result<std::string> found = FindProgram("./bin/tool", "", dir_.path().string());
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(fs::path(*found).lexically_normal(), fs::path(Bin()) / "tool");
}

struct BadPathCase {
  std::string name;
  std::string relative;  // under the temp dir
  std::string reason;
};

class FindProgramBadPathTest : public FindProgramTest,
                               public ::testing::WithParamInterface<BadPathCase> {};

TEST_P(FindProgramBadPathTest, SaysWhyItCannotRun) {
  std::string program = dir_.File(GetParam().relative);
  EXPECT_EQ(FindProgram(program, Bin(), "").status(),
            Status::FailedPrecondition("Cannot run " + program + ": " + GetParam().reason));
}

INSTANTIATE_TEST_SUITE_P(
    Table, FindProgramBadPathTest,
    ::testing::Values(BadPathCase{"Missing", "bin/nope", "no such file"},
                      BadPathCase{"NotExecutable", "bin/data", "not executable"},
                      BadPathCase{"Directory", "bin/subdir", "is a directory"}),
    [](const auto& tc) { return tc.param.name; });

// `nobody` (65534:65534 on Debian) as the run-as user: as root the child gets its ids and no
// supplementary groups; otherwise the switch fails and says so, and nothing runs.
TEST(SpawnProcess, RunsTheChildAsTheGivenUser) {
  TempDir dir;
  const std::string out = dir.File("ids.txt");
  SpawnSpec spec{.argv = {"/bin/sh", "-c", "echo $(id -u):$(id -g):$(id -G)"},
                 .stdout_path = out,
                 .stderr_path = out,
                 .user = RunAs{.name = "nobody", .uid = 65534, .gid = 65534}};
  Result<int> pid = SpawnProcess(spec, {{"PATH", "/usr/bin:/bin"}});
  if (geteuid() != 0) {
    ASSERT_FALSE(pid.ok());
    EXPECT_NE(pid.status().message().find(std::strerror(EPERM)), std::string::npos)
        << pid.status().message();
    return;
  }
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "65534:65534:65534");
}

TEST(SpawnProcess, AProgramThatCannotRunAsTheUserIsReportedLikeAnyOther) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "switching users needs root";
  }
  // Executable for this process (root), but in a directory only root may enter (mkdtemp's 0700):
  // the exec as the user fails in the child, and its errno comes back.
  TempDir dir;
  const std::string program = dir.File("train.sh");
  std::ofstream(program) << "#!/bin/sh\nexit 0\n";
  fs::permissions(program, fs::perms::owner_all);
  SpawnSpec spec{.argv = {program}, .user = RunAs{.name = "nobody", .uid = 65534, .gid = 65534}};
  Result<int> pid = SpawnProcess(spec, {});
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(pid.status().message().find(std::strerror(EACCES)), std::string::npos)
      << pid.status().message();
}

}  // namespace
}  // namespace trainyard::run::local
