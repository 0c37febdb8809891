// `trainyard local train` through `Run`, with a stdlib-only trainer in a temp dir and fake
// interpreters (shell scripts answering gcloud's TensorFlow probe, else running
// /usr/bin/python3): gcloud's TF_CONFIG, working directory, arguments, warnings and exit codes.
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/stat.h>

#include "cli/commands/commands.h"
#include "cli/outcome.h"
#include "fakes/temp_dir.h"

namespace trainyard::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Writes <out>/<type>-<index>.json (TF_CONFIG, argv, cwd, pid, which cloud variables are set);
// the others then sleep until stopped, the primary waits for --expect other files and exits
// with --exit.
constexpr const char* kTrainer = R"(import json, os, sys, time
arg = lambda name: sys.argv[sys.argv.index(name) + 1]
out = arg("--out")
tf = json.loads(os.environ["TF_CONFIG"])
task = tf["task"]
name = "%s-%s" % (task.get("type", "single"), task.get("index", 0))
record = {"tf_config": tf, "argv": sys.argv[1:], "cwd": os.getcwd(), "pid": os.getpid(),
          "cloud_vars": [v for v in ("CLUSTER_SPEC", "CLOUD_ML_JOB_ID") if v in os.environ]}
with open(os.path.join(out, name + ".tmp"), "w") as f:
    json.dump(record, f)
os.rename(os.path.join(out, name + ".tmp"), os.path.join(out, name + ".json"))
if task.get("type") not in (None, "chief", "master"):
    time.sleep(600)
    sys.exit(0)
deadline = time.time() + 60
while len([n for n in os.listdir(out) if n.endswith(".json")]) < int(arg("--expect")) + 1:
    if time.time() > deadline:
        sys.exit(99)
    time.sleep(0.01)
sys.exit(int(arg("--exit")))
)";

using testing::Outcome;

class LocalTrainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(package_dir());
    fs::create_directories(out_dir());
    std::ofstream(package_dir() / "__init__.py") << "";
    std::ofstream(package_dir() / "task.py") << kTrainer;
  }

  fs::path package_dir() const { return dir_.path() / "src" / "trainer"; }
  fs::path out_dir() const { return dir_.path() / "out"; }

  // An interpreter whose answer to gcloud's `-c 'import tensorflow …'` is `probe` (shell).
  std::string FakePython(const std::string& name, const std::string& probe) const {
    const fs::path path = dir_.path() / name;
    std::ofstream(path) << "#!/bin/sh\nif [ \"$1\" = -c ]; then " << probe
                        << "; fi\nexec /usr/bin/python3 \"$@\"\n";
    fs::permissions(path, fs::perms::owner_all);
    return path.string();
  }

  // `trainyard local train --module-name trainer.task --package-path … FLAGS -- --out … ARGS`.
  Outcome Train(const std::vector<std::string>& flags, const std::vector<std::string>& args,
                const Environment& env = {}) {
    std::vector<std::string> command = {"local",        "train",          "--module-name",
                                        "trainer.task", "--package-path", package_dir().string()};
    command.insert(command.end(), flags.begin(), flags.end());
    command.insert(command.end(), {"--", "--out", out_dir().string()});
    command.insert(command.end(), args.begin(), args.end());
    return RunCli(command, env);
  }

  static Outcome RunCli(const std::vector<std::string>& args, const Environment& env = {}) {
    std::ostringstream out;
    std::ostringstream err;
    const int rc = cli::Run(args, out, err, env);
    return {rc, out.str(), err.str()};
  }

  nlohmann::json Record(const std::string& task) const {
    std::ifstream in(out_dir() / (task + ".json"));
    if (!in) {
      ADD_FAILURE() << "no record from " << task;
      return nullptr;
    }
    return nlohmann::json::parse(in);
  }

  testing::TempDir dir_;
};

TEST_F(LocalTrainTest, RunsThePrimaryAloneInTheParentOfThePackagePath) {
  const std::string python = FakePython("python", "exit 1");
  const Outcome o = Train({"--python", python, "--job-dir", "/tmp/jd", "--worker-count", "3",
                           "--parameter-server-count", "2"},
                          {"--expect", "0", "--exit", "0"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err,
            fmt::format("WARNING: --parameter-server-count is ignored if --distributed is not "
                        "provided.\nDid you mean to run distributed training?\n"
                        "WARNING: --worker-count is ignored if --distributed is not provided.\n"
                        "Did you mean to run distributed training?\n"
                        "WARNING: \n"
                        "    Cannot import tensorflow under path {}. Using \"chief\" for cluster "
                        "setting.\n"
                        "    If this is not intended, Please check if tensorflow is installed. "
                        "Please also\n"
                        "    verify if the python path used is correct. If not, to change the "
                        "python path:\n"
                        "    use `--python $python_path` or `export "
                        "TRAINYARD_PYTHON=$python_path`\n"
                        "    Eg: export TRAINYARD_PYTHON=/usr/bin/python3\n",
                        python));
  const nlohmann::json record = Record("single-0");
  const std::vector<std::string> args = {"--out", out_dir().string(), "--expect", "0", "--exit",
                                         "0",     "--job-dir",        "/tmp/jd"};
  EXPECT_EQ(record["argv"], args);
  EXPECT_EQ(record["cwd"], (dir_.path() / "src").string());
  EXPECT_EQ(record["cloud_vars"], nlohmann::json::array());
  EXPECT_EQ(record["tf_config"],
            (nlohmann::json{{"job", {{"job_name", "trainer.task"}, {"args", args}}},
                            {"task", nlohmann::json::object()},
                            {"cluster", nlohmann::json::object()},
                            {"environment", "cloud"}}));
}

TEST_F(LocalTrainTest, DistributedGivesEveryProcessGcloudsClusterAndStopsThemAfterThePrimary) {
  const Outcome o = Train({"--python", FakePython("python", "echo 2.11.0; exit 0"), "--distributed",
                           "--worker-count", "2", "--parameter-server-count", "1",
                           "--evaluator-count", "1", "--start-port", "31000", "--job-dir", "/jd"},
                          {"--expect", "4", "--exit", "3"});
  EXPECT_EQ(o.rc, 3) << o.err;
  EXPECT_EQ(o.err, "");
  const std::vector<std::string> args = {"--out", out_dir().string(), "--expect", "4", "--exit",
                                         "3",     "--job-dir",        "/jd"};
  const nlohmann::json cluster = {{"chief", {"localhost:31000"}},
                                  {"ps", {"localhost:31001"}},
                                  {"worker", {"localhost:31002", "localhost:31003"}}};
  for (const auto& [task, type, index] :
       std::vector<std::tuple<std::string, std::string, int>>{{"chief-0", "chief", 0},
                                                              {"ps-0", "ps", 0},
                                                              {"worker-0", "worker", 0},
                                                              {"worker-1", "worker", 1},
                                                              {"evaluator-0", "evaluator", 0}}) {
    SCOPED_TRACE(task);
    const nlohmann::json record = Record(task);
    EXPECT_EQ(record["tf_config"],
              (nlohmann::json{{"job", {{"job_name", "trainer.task"}, {"args", args}}},
                              {"task", {{"type", type}, {"index", index}}},
                              {"cluster", cluster},
                              {"environment", "cloud"}}));
    EXPECT_EQ(record["argv"], args);
    EXPECT_EQ(record["cwd"], (dir_.path() / "src").string());
    if (type != "chief") {  // stopped and reaped before `Run` returned
      EXPECT_TRUE(kill(record["pid"].get<int>(), 0) == -1 && errno == ESRCH);
    }
  }
}

struct PrimaryCase {
  std::string name;
  std::string probe;  // the fake interpreter's answer to the TensorFlow probe
  std::string primary;
  std::string warning;  // a part of stderr; "" for none
};

class PrimaryNameTest : public LocalTrainTest, public ::testing::WithParamInterface<PrimaryCase> {};

TEST_P(PrimaryNameTest, FollowsTheInterpretersTensorflow) {
  const PrimaryCase& c = GetParam();
  const Outcome o = Train({"--python", FakePython("python", c.probe), "--distributed",
                           "--worker-count", "0", "--parameter-server-count", "0"},
                          {"--expect", "0", "--exit", "0"});
  ASSERT_EQ(o.rc, 0) << o.err;
  const nlohmann::json record = Record(c.primary + "-0");
  EXPECT_EQ(record["tf_config"]["cluster"], (nlohmann::json{{c.primary, {"localhost:27182"}},
                                                            {"ps", nlohmann::json::array()},
                                                            {"worker", nlohmann::json::array()}}));
  if (c.warning.empty()) {
    EXPECT_EQ(o.err, "");
  } else {
    EXPECT_THAT(o.err, StartsWith("WARNING: "));
    EXPECT_THAT(o.err, HasSubstr(c.warning));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Gcloud, PrimaryNameTest,
    ::testing::Values(PrimaryCase{"Tf1", "echo 1.15.5; exit 0", "master", ""},
                      PrimaryCase{"Tf2", "echo 2.11.0; exit 0", "chief", ""},
                      PrimaryCase{"NoTf", "echo oops >&2; exit 1", "chief",
                                  "Cannot import tensorflow under path"},
                      PrimaryCase{"OtherVersion", "echo 3.0.0; exit 0", "chief",
                                  "Unexpected tensorflow version 3.0.0, using the default "
                                  "primary node name, aka \"chief\" for cluster settings\n"}),
    [](const auto& tc) { return tc.param.name; });

// The interpreters are told apart by their TensorFlow: "tf1" makes the primary "master", "tf2"
// makes it "chief".
struct InterpreterCase {
  std::string name;
  std::optional<std::string> flag;  // --python: "tf1" or "tf2"
  std::optional<std::string> env;   // $TRAINYARD_PYTHON: "tf1" or "tf2"
  std::string primary;
};

class InterpreterTest : public LocalTrainTest,
                        public ::testing::WithParamInterface<InterpreterCase> {
 protected:
  std::string Python(const std::string& which) const {
    return FakePython("python-" + which,
                      which == "tf1" ? "echo 1.15.5; exit 0" : "echo 2.11.0; exit 0");
  }
};

TEST_P(InterpreterTest, IsTheFlagThenTrainyardPython) {
  const InterpreterCase& c = GetParam();
  std::vector<std::string> flags = {"--distributed", "--worker-count", "0",
                                    "--parameter-server-count", "0"};
  if (c.flag) {
    flags.insert(flags.end(), {"--python", Python(*c.flag)});
  }
  Environment env;
  if (c.env) {
    env.python = Python(*c.env);
  }
  const Outcome o = Train(flags, {"--expect", "0", "--exit", "0"}, env);
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_EQ(Record(c.primary + "-0")["tf_config"]["task"]["type"], c.primary);
}

INSTANTIATE_TEST_SUITE_P(
    Sources, InterpreterTest,
    ::testing::Values(InterpreterCase{"TrainyardPython", std::nullopt, "tf1", "master"},
                      InterpreterCase{"FlagWinsOverTrainyardPython", "tf2", "tf1", "chief"},
                      InterpreterCase{"FlagAlone", "tf1", std::nullopt, "master"}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(LocalTrainTest, AnInterpreterThatCannotRunIsAnError) {
  const Outcome o = Train({"--python", "/nonexistent/python"}, {"--expect", "0", "--exit", "0"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err,
            "ERROR: (trainyard.local.train) Cannot run [/nonexistent/python]: No such file or "
            "directory\n");
}

struct BadFlagsCase {
  std::string name;
  std::vector<std::string> flags;
  std::string error;  // after "ERROR: (trainyard.local.train) "
};

class BadFlagsTest : public ::testing::TestWithParam<BadFlagsCase> {};

TEST_P(BadFlagsTest, AreAParseError) {
  std::vector<std::string> args = {"local", "train"};
  args.insert(args.end(), GetParam().flags.begin(), GetParam().flags.end());
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(cli::Run(args, out, err, {}), 2);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(err.str(), "ERROR: (trainyard.local.train) " + GetParam().error + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Flags, BadFlagsTest,
    ::testing::Values(
        BadFlagsCase{"NoModule", {"--package-path", "x"}, "--module-name is required"},
        BadFlagsCase{"NegativeCount",
                     {"--module-name", "m", "--worker-count", "-1"},
                     "--worker-count: must be 0 or more, got -1"},
        BadFlagsCase{"NotANumber",
                     {"--module-name", "m", "--parameter-server-count", "two"},
                     "--parameter-server-count: invalid int value: 'two'"},
        BadFlagsCase{"PortOutOfRange",
                     {"--module-name", "m", "--start-port", "0"},
                     "--start-port: Value 0 not in range 1 to 65535"},
        BadFlagsCase{"PortsPastTheEnd",
                     {"--module-name", "m", "--distributed", "--start-port", "65534"},
                     "--start-port: the cluster needs ports 65534 to 65538, past 65535"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::cli
