#include "run/local/pip_stager.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "fakes/temp_dir.h"
#include "run/exit_recorder.h"
#include "run/local/install_script.h"
#include "run/local/process_launcher.h"
#include "run/local/spawn.h"
#include "run/log_file.h"
#include "run/test_process.h"
#include "support/build_paths.h"
#include "support/wait.h"

namespace trainyard::run::local {
namespace {

using ::trainyard::run::testing::kDeadlineMs;
using ::trainyard::run::testing::ReadFile;
using ::trainyard::testing::WaitUntil;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::trainyard::run::testing::CapturedText;
using ::trainyard::run::testing::ExitRecorder;
using ::trainyard::testing::TempDir;

constexpr char kPython[] = "/usr/bin/python3";

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// The pids listed in `path`, one a line.
std::vector<int> PidsIn(const std::string& path) {
  std::vector<int> pids;
  std::ifstream in(path);
  for (int pid = 0; in >> pid;) {
    pids.push_back(pid);
  }
  return pids;
}

// Whether `pid` runs: it exists and is not a zombie (exited, not yet reaped by its parent).
bool Running(int pid) {
  const std::string status = ReadFile("/proc/" + std::to_string(pid) + "/status");
  return !status.empty() && status.find("State:\tZ") == std::string::npos;
}

bool NoneRunning(const std::vector<int>& pids) {
  return std::none_of(pids.begin(), pids.end(), Running);
}

class PipStagerTest : public ::testing::Test {
 protected:
  // Runs `argv` in `cwd` to completion; its output goes to tools.log.
  ExitStatus Run(std::vector<std::string> argv, const std::string& cwd, Environment env = {}) {
    Result<int> pid = launcher_.Start(ProcessSpec{.argv = std::move(argv),
                                                  .env = std::move(env),
                                                  .working_dir = cwd,
                                                  .log_path = dir_.File("tools.log"),
                                                  .exit_path = dir_.File("tools.exit")});
    EXPECT_TRUE(pid.ok()) << pid.status().ToString();
    std::optional<ExitStatus> status = pid.ok() ? exits_.WaitFor(*pid) : std::nullopt;
    return status.value_or(ExitStatus{.code = -1});
  }

  // A real sdist of package `name` (VALUE = `value`), built with setup.py into `dist_dir`.
  std::string BuildSdist(const std::string& name, int value, const std::string& dist_dir) {
    fs::path src = dir_.path() / "src" / name;
    WriteFile(src / "setup.py", "from setuptools import setup\nsetup(name='" + name +
                                    "', version='0.1', packages=['" + name + "'])\n");
    WriteFile(src / name / "__init__.py", "VALUE = " + std::to_string(value) + "\n");
    ExitStatus built = Run({kPython, "setup.py", "-q", "sdist", "--dist-dir", dist_dir}, src);
    EXPECT_TRUE(built.Succeeded()) << built.Describe() << "\n"
                                   << CapturedText(dir_.File("tools.log"));
    return dist_dir + "/" + name + "-0.1.tar.gz";
  }

  // What `python3 -c <code>` prints with PYTHONPATH=target.
  std::string ImportOutput(const std::string& code) {
    std::string out = dir_.File("import.log");
    std::filesystem::remove(out);
    Result<int> pid = launcher_.Start(ProcessSpec{.argv = {kPython, "-c", code},
                                                  .env = {{"PYTHONPATH", Target()}},
                                                  .working_dir = dir_.File("elsewhere"),
                                                  .log_path = out,
                                                  .exit_path = dir_.File("import.exit")});
    EXPECT_TRUE(pid.ok()) << pid.status().ToString();
    if (pid.ok()) {
      EXPECT_TRUE(exits_.WaitFor(*pid).has_value());
    }
    return CapturedText(out);
  }

  StageRequest Request(std::vector<std::string> uris, std::string python = kPython) const {
    return StageRequest{.package_uris = std::move(uris),
                        .gcs_mount = dir_.File("gcs"),
                        .target_dir = Target(),
                        .python = std::move(python),
                        .log_path = dir_.File("job/pip.log")};
  }
  std::string Target() const { return dir_.File("job/packages"); }
  std::string Log() const { return ReadFile(dir_.File("job/pip.log")); }

  // An executable script standing in for the interpreter.
  std::string FakePython(const std::string& body) {
    std::string path = dir_.File("fakepython");
    WriteFile(path, "#!/bin/sh\n" + body);
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }

  TempDir dir_;
  ExitRecorder exits_;
  ProcessLauncher launcher_{exits_.Callback(), ::trainyard::testing::SupervisorPath()};
  PipStager stager_;
};

TEST_F(PipStagerTest, InstallsAnSdistFromTheGcsMount) {
  BuildSdist("tinypkg", 42, dir_.File("gcs/bucket/staging"));
  Status status = stager_.Stage(Request({"gs://bucket/staging/tinypkg-0.1.tar.gz"}));
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << Log();
  EXPECT_TRUE(fs::exists(Target() + "/tinypkg/__init__.py"));
  EXPECT_EQ(ImportOutput("import tinypkg; print(tinypkg.VALUE)"), "42\n");
  // Built into a wheel in the install script's own interpreter, then unpacked: no pip.
  EXPECT_THAT(Log(), HasSubstr("Unpacked tinypkg-0.1-py3-none-any.whl"));
}

// Two sdists whose setup.py each import a module of the same name from their own tree: the
// second gets its own, not the first one's (both are built in one interpreter).
TEST_F(PipStagerTest, OneSetupPysImportsDoNotLeakIntoTheNext) {
  std::vector<std::string> uris;
  for (const std::string name : {"firstleak", "secondleak"}) {
    const fs::path src = dir_.path() / "src" / name;
    WriteFile(
        src / "setup.py",
        "from setuptools import setup\nimport about\n"
        "setup(name=about.NAME, version='0.1', packages=[about.NAME], py_modules=['about'])\n");
    WriteFile(src / "about.py", "NAME = '" + name + "'\n");
    WriteFile(src / name / "__init__.py", "VALUE = 1\n");
    ASSERT_TRUE(Run({kPython, "setup.py", "-q", "sdist", "--dist-dir", dir_.File("gcs/bucket")},
                    src.string())
                    .Succeeded())
        << CapturedText(dir_.File("tools.log"));
    uris.push_back("gs://bucket/" + name + "-0.1.tar.gz");
  }
  Status status = stager_.Stage(Request(uris));
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << Log();
  EXPECT_THAT(Log(), HasSubstr("Unpacked firstleak-0.1-py3-none-any.whl, "
                               "secondleak-0.1-py3-none-any.whl"));
  EXPECT_EQ(ImportOutput("import firstleak, secondleak; print(firstleak.VALUE + secondleak.VALUE)"),
            "2\n");
}

// An sdist with a pyproject.toml may name any build backend: pip builds it.
TEST_F(PipStagerTest, SdistWithAPyprojectGoesToPip) {
  WriteFile(dir_.path() / "src" / "pepkg" / "pyproject.toml",
            "[build-system]\nrequires = [\"setuptools\"]\n"
            "build-backend = \"setuptools.build_meta\"\n");
  BuildSdist("pepkg", 5, dir_.File("gcs/bucket"));
  Status status = stager_.Stage(Request({"gs://bucket/pepkg-0.1.tar.gz"}));
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << Log();
  EXPECT_EQ(ImportOutput("import pepkg; print(pepkg.VALUE)"), "5\n");
  EXPECT_THAT(Log(), HasSubstr("Successfully installed pepkg-0.1"));
}

TEST_F(PipStagerTest, InstallsSeveralPackagesFromGcsAndAbsolutePaths) {
  BuildSdist("firstpkg", 1, dir_.File("gcs/bucket/p"));
  std::string local = BuildSdist("secondpkg", 2, dir_.File("local"));
  Status status = stager_.Stage(Request({"gs://bucket/p/firstpkg-0.1.tar.gz", local}));
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << Log();
  EXPECT_EQ(ImportOutput("import firstpkg, secondpkg; print(firstpkg.VALUE + secondpkg.VALUE)"),
            "3\n");
}

// Issue #31: a job of the project writes its buckets and can plant a link there, as the object
// or as a folder on its path. The server follows neither: the stage fails naming the URI and
// the link, before pip runs, and nothing the link points to is read.
TEST_F(PipStagerTest, ALinkInAGcsPackagesPathIsNeverFollowed) {
  const std::string outside = BuildSdist("outsidepkg", 9, dir_.File("outside"));
  fs::create_directories(dir_.File("gcs/bucket/pkg"));
  fs::create_symlink(outside, dir_.File("gcs/bucket/pkg/outsidepkg-0.1.tar.gz"));
  fs::create_directory_symlink(dir_.File("outside"), dir_.File("gcs/bucket/linked"));
  for (const auto& [uri, link] :
       {std::pair{"gs://bucket/pkg/outsidepkg-0.1.tar.gz", "pkg/outsidepkg-0.1.tar.gz"},
        std::pair{"gs://bucket/linked/outsidepkg-0.1.tar.gz", "linked"}}) {
    Status status = stager_.Stage(Request({uri}));
    EXPECT_EQ(status,
              Status::FailedPrecondition("Cannot read package " + std::string(uri) + ": " + link +
                                         " is a symbolic link, which is never followed."));
    EXPECT_FALSE(fs::exists(dir_.File("job/pip.log")));
    EXPECT_FALSE(fs::exists(Target() + "/outsidepkg"));
    EXPECT_FALSE(fs::exists(Target() + ".sources"));
  }
}

// pip reads the server's copy of a package, under the object's own name, never the bucket's
// file; the copy goes when the stage ends.
TEST_F(PipStagerTest, PipReadsTheServersCopyOfAGcsPackage) {
  WriteFile(dir_.File("gcs/bucket/p/trainer-0.1.tar.gz"), "package bytes");
  const std::string python = FakePython("shift 3; echo \"$1\"; cat \"$1\"; echo\n");
  ASSERT_TRUE(stager_.Stage(Request({"gs://bucket/p/trainer-0.1.tar.gz"}, python)).ok()) << Log();
  EXPECT_EQ(Log(), Target() + ".sources/0/trainer-0.1.tar.gz\npackage bytes\n");
  EXPECT_FALSE(fs::exists(Target() + ".sources"));
}

TEST_F(PipStagerTest, BrokenPackageFailsWithPipsLastLines) {
  fs::path src = dir_.path() / "src" / "badpkg-0.1";
  WriteFile(src / "setup.py", "raise RuntimeError('broken setup for test')\n");
  WriteFile(src / "badpkg" / "__init__.py", "");
  fs::create_directories(dir_.path() / "gcs" / "bucket");
  ASSERT_TRUE(
      Run({"tar", "czf", dir_.File("gcs/bucket/badpkg-0.1.tar.gz"), "badpkg-0.1"}, dir_.File("src"))
          .Succeeded());

  Status status = stager_.Stage(Request({"gs://bucket/badpkg-0.1.tar.gz"}));
  EXPECT_EQ(status.code(), Code::kFailedPrecondition);
  EXPECT_THAT(status.message(), StartsWith("Failed to install packages: "));
  EXPECT_THAT(status.message(), HasSubstr("RuntimeError: broken setup for test"));
  EXPECT_THAT(Log(), HasSubstr("RuntimeError: broken setup for test"));
  EXPECT_FALSE(fs::exists(Target() + "/badpkg"));
}

TEST_F(PipStagerTest, MissingPackageIsNamedBeforePipRuns) {
  Status status = stager_.Stage(Request({"gs://bucket/nope.tar.gz"}));
  EXPECT_EQ(status, Status::FailedPrecondition("Package gs://bucket/nope.tar.gz not found."));
  EXPECT_FALSE(fs::exists(dir_.File("job/pip.log")));
}

TEST_F(PipStagerTest, RelativePathIsRefused) {
  Status status = stager_.Stage(Request({"dist/p.tar.gz"}));
  EXPECT_EQ(status.code(), Code::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("dist/p.tar.gz"));
}

TEST_F(PipStagerTest, NoPackagesIsNothingToDo) {
  EXPECT_TRUE(stager_.Stage(Request({})).ok());
  EXPECT_FALSE(fs::exists(dir_.File("job/pip.log")));
}

TEST_F(PipStagerTest, RunsPipOfflineIntoTheTarget) {
  WriteFile(dir_.File("p.tar.gz"), "");
  // The interpreter runs the install script with the target and the packages; the script runs
  // pip with these options.
  std::string python = FakePython(
      "echo \"$1 $3 $4\"; echo \"PIP_NO_INDEX=$PIP_NO_INDEX\"; pwd -P\n"
      "case \"$2\" in *'\"--no-index\", \"--no-deps\", \"--no-build-isolation\"'*) "
      "echo offline;; esac\n");
  ASSERT_TRUE(stager_.Stage(Request({dir_.File("p.tar.gz")}, python)).ok()) << Log();
  EXPECT_EQ(Log(), "-c " + Target() + " " + Target() + ".sources/0/p.tar.gz\nPIP_NO_INDEX=1\n" +
                       fs::canonical(Target()).string() + "\noffline\n");
}

// A pure wheel is unpacked (with its .data/purelib moved up and its modules compiled), without
// pip; pip would print "Successfully installed".
TEST_F(PipStagerTest, UnpacksPureWheels) {
  const std::string wheel = dir_.File("gcs/bucket/wheelpkg-0.1-py3-none-any.whl");
  fs::create_directories(dir_.File("gcs/bucket"));
  ASSERT_TRUE(Run({kPython, "-c",
                   "import sys, zipfile\n"
                   "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
                   "    z.writestr('wheelpkg/__init__.py', 'VALUE = 7\\n')\n"
                   "    z.writestr('wheelpkg-0.1.data/purelib/wheelextra.py', 'VALUE = 8\\n')\n"
                   "    z.writestr('wheelpkg-0.1.dist-info/METADATA', 'Name: wheelpkg\\n')\n",
                   wheel},
                  dir_.path().string())
                  .Succeeded())
      << CapturedText(dir_.File("tools.log"));
  Status status = stager_.Stage(Request({"gs://bucket/wheelpkg-0.1-py3-none-any.whl"}));
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << Log();
  EXPECT_EQ(ImportOutput("import wheelpkg, wheelextra; print(wheelpkg.VALUE + wheelextra.VALUE)"),
            "15\n");
  EXPECT_TRUE(fs::exists(Target() + "/wheelpkg-0.1.dist-info/METADATA"));
  EXPECT_FALSE(fs::exists(Target() + "/wheelpkg-0.1.data"));
  EXPECT_TRUE(fs::exists(Target() + "/wheelpkg/__pycache__"));
  EXPECT_THAT(Log(), HasSubstr("Unpacked wheelpkg-0.1-py3-none-any.whl"));
}

struct FailureCase {
  std::string name;
  std::string script;   // the fake interpreter's body
  std::string message;  // the whole status message
};

class PipStagerFailureTest : public PipStagerTest,
                             public ::testing::WithParamInterface<FailureCase> {};

TEST_P(PipStagerFailureTest, ReportsOnlyThisRunsLastNonEmptyLines) {
  WriteFile(dir_.File("job/pip.log"), "an earlier attempt\n");
  WriteFile(dir_.File("p.tar.gz"), "");
  Status status = stager_.Stage(Request({dir_.File("p.tar.gz")}, FakePython(GetParam().script)));
  EXPECT_EQ(status, Status::FailedPrecondition(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Table, PipStagerFailureTest,
    ::testing::Values(
        FailureCase{"NonZeroExit",
                    "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do echo \"line $i  \"; echo; "
                    "done\nexit 2\n",
                    "Failed to install packages: line 4\nline 5\nline 6\nline 7\nline 8\nline "
                    "9\nline 10\nline 11\nline 12\nline 13\nline 14\nline 15"},
        FailureCase{"ShortOutput", "echo 'ERROR: bad' >&2\nexit 1\n",
                    "Failed to install packages: ERROR: bad"},
        FailureCase{"NoOutput", "exit 1\n",
                    "Failed to install packages: pip exited with a non-zero status of 1"},
        FailureCase{"Killed", "echo dying\nkill -9 $$\n",
                    "Failed to install packages: pip was terminated by signal 9 (SIGKILL)\n"
                    "dying"}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(PipStagerTest, PipRunningTooLongIsStopped) {
  WriteFile(dir_.File("p.tar.gz"), "");
  PipStager stager(PipStagerOptions{.timeout_seconds = 1});
  Status status =
      stager.Stage(Request({dir_.File("p.tar.gz")}, FakePython("echo started\nexec sleep 100\n")));
  EXPECT_EQ(status, Status::FailedPrecondition(
                        "Installing packages timed out after 1 seconds; pip was stopped."));
  EXPECT_EQ(Log(), "started\n");
}

// A cancelled install is stopped with every process of it, SIGKILL for those that ignore SIGTERM,
// and Stage returns at once; its recorded pid is gone.
TEST_F(PipStagerTest, CancelStopsTheInstallAndItsChildren) {
  WriteFile(dir_.File("p.tar.gz"), "");
  PipStager stager(PipStagerOptions{.stop_grace = std::chrono::milliseconds(100)});
  const std::string pids = dir_.File("pids");
  StageRequest request = Request({dir_.File("p.tar.gz")},
                                 FakePython("trap '' TERM\nsleep 1000 &\necho $$ $! > " + pids +
                                            ".tmp\nmv " + pids + ".tmp " + pids + "\nwait\n"));
  std::stop_source stop;
  request.stop = stop.get_token();
  request.pid_file = dir_.File("job/run/staging.pid");
  Status status;
  std::thread staging([&] { status = stager.Stage(request); });
  // The stager records the install's pid once its spawn returns, which may be after the install
  // has written its own pids: wait for both.
  ASSERT_TRUE(
      WaitUntil([&] { return PidsIn(pids).size() == 2 && !PidsIn(request.pid_file).empty(); },
                std::chrono::milliseconds(kDeadlineMs)));
  EXPECT_EQ(PidsIn(request.pid_file), std::vector<int>{PidsIn(pids)[0]});
  stop.request_stop();
  staging.join();
  EXPECT_EQ(status.code(), Code::kCancelled) << status.ToString();
  EXPECT_TRUE(
      WaitUntil([&] { return NoneRunning(PidsIn(pids)); }, std::chrono::milliseconds(kDeadlineMs)));
  EXPECT_FALSE(fs::exists(request.pid_file));
}

// A server killed while installing leaves its install running, recorded in the job's pid file:
// the next install of the job stops it (and its children) before it starts.
TEST_F(PipStagerTest, AnInstallRecordedByAKilledServerIsStoppedFirst) {
  WriteFile(dir_.File("p.tar.gz"), "");
  const std::string pid_file = dir_.File("job/run/staging.pid");
  const std::string orphan_pids = dir_.File("orphan");
  // The earlier install: the install script's command line, ignoring SIGTERM, with a child.
  const std::string earlier = dir_.File("earlierpython");
  WriteFile(earlier, "#!/bin/sh\ntrap '' TERM\nsleep 1000 &\necho $$ $! > " + orphan_pids +
                         ".tmp\nmv " + orphan_pids + ".tmp " + orphan_pids + "\nwait\n");
  fs::permissions(earlier, fs::perms::owner_all);
  Result<int> orphan =
      SpawnProcess(SpawnSpec{.argv = {earlier, "-c", std::string(kInstallScript), Target()}}, {});
  ASSERT_TRUE(orphan.ok()) << orphan.status().ToString();
  std::thread reaper([pid = *orphan] { waitpid(pid, nullptr, 0); });  // as init would
  WriteFile(pid_file, std::to_string(*orphan) + "\n");
  ASSERT_TRUE(WaitUntil([&] { return PidsIn(orphan_pids).size() == 2; },
                        std::chrono::milliseconds(kDeadlineMs)));

  // The new install says whether the earlier one still ran when it started.
  PipStager stager(PipStagerOptions{.stop_grace = std::chrono::milliseconds(100)});
  StageRequest request = Request(
      {dir_.File("p.tar.gz")},
      FakePython("s=$(grep '^State:' /proc/" + std::to_string(*orphan) +
                 "/status 2>/dev/null)\ncase \"$s\" in ''|*Z*) echo earlier gone ;; *) echo "
                 "earlier running ;; esac\n"));
  request.pid_file = pid_file;
  Status status = stager.Stage(request);
  EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(Log(), "earlier gone\n");
  EXPECT_TRUE(WaitUntil([&] { return NoneRunning(PidsIn(orphan_pids)); },
                        std::chrono::milliseconds(kDeadlineMs)));
  EXPECT_FALSE(fs::exists(pid_file));
  kill(-*orphan, SIGKILL);  // only if a failed expectation left it running
  reaper.join();
}

// A recorded pid that is not an install (reused by another program) is left alone.
TEST_F(PipStagerTest, ARecordedPidThatIsNotAnInstallIsLeftAlone) {
  Result<int> other = SpawnProcess(SpawnSpec{.argv = {"sleep", "1000"}}, {});
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  const std::string pid_file = dir_.File("job/run/staging.pid");
  WriteFile(pid_file, std::to_string(*other) + "\n");
  EXPECT_TRUE(StopRecordedInstall(pid_file, std::chrono::milliseconds(100)).ok());
  EXPECT_TRUE(Running(*other));
  EXPECT_FALSE(fs::exists(pid_file));
  kill(-*other, SIGKILL);
  waitpid(*other, nullptr, 0);
}

}  // namespace
}  // namespace trainyard::run::local
