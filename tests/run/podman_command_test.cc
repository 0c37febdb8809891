#include "run/container/podman_command.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trainyard::run::container {
namespace {

using ::testing::ElementsAre;
using Words = std::vector<std::string>;
using Environment = std::vector<std::pair<std::string, std::string>>;

PodmanHost Host() {
  return PodmanHost{.podman = "/usr/bin/podman",
                    .missing = "",
                    .runtime = "/usr/sbin/runc",
                    .init = true,
                    .ulimits = {"nofile=1024:1024", "nproc=4096:4096"},
                    .gpu = GpuAccess::kNone,
                    .control_devices = {},
                    .driver_files = {},
                    .driver_binaries = {},
                    .auth_file = "",
                    .insecure_registries = {}};
}

ContainerSpec Spec() {
  return ContainerSpec{.image = "127.0.0.1:5000/team/trainer:1",
                       .entrypoint = {},
                       .args = {},
                       .name = "trainyard-p-j-master-replica-0",
                       .labels = {{"trainyard.job", "j"}, {"trainyard.task", "master-replica-0"}},
                       .mounts = {},
                       .device_indices = {},
                       .working_dir = "",
                       .hosts = {}};
}

// The words after the image: what replaces the image's CMD.
Words AfterImage(const Words& argv, const std::string& image) {
  auto at = std::find(argv.begin(), argv.end(), image);
  return at == argv.end() ? Words{"<no image>"} : Words(at + 1, argv.end());
}

// The values of every `flag VALUE` pair, in order.
Words Values(const Words& argv, const std::string& flag) {
  Words values;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag) {
      values.push_back(argv[i + 1]);
    }
  }
  return values;
}

TEST(PodmanRunCommand, IsTheWholeCommandForAPlainReplica) {
  EXPECT_EQ(RunCommand(Host(), Spec(), {{"TF_CONFIG", "{\"task\":{}}"}}),
            (Words{"/usr/bin/podman",
                   "run",
                   "--rm",
                   "--replace",
                   "--name",
                   "trainyard-p-j-master-replica-0",
                   "--label",
                   "trainyard.job=j",
                   "--label",
                   "trainyard.task=master-replica-0",
                   "--pull",
                   "never",
                   "--network",
                   "host",
                   "--init",
                   "--runtime",
                   "/usr/sbin/runc",
                   "--ulimit",
                   "nofile=1024:1024",
                   "--ulimit",
                   "nproc=4096:4096",
                   "--log-driver",
                   "none",
                   "--env",
                   "TF_CONFIG={\"task\":{}}",
                   "127.0.0.1:5000/team/trainer:1"}));
}

// Every command/args combination (Kubernetes rules): the entrypoint flag only with a command,
// words after the image only with args.
struct CommandArgsCase {
  std::string name;
  Words entrypoint;
  Words args;
  Words want_entrypoint_flag;  // the --entrypoint values
  Words want_after_image;
};

class PodmanCommandArgsTest : public ::testing::TestWithParam<CommandArgsCase> {};

TEST_P(PodmanCommandArgsTest, ReplaceOnlyWhatIsGiven) {
  const CommandArgsCase& tc = GetParam();
  ContainerSpec spec = Spec();
  spec.entrypoint = tc.entrypoint;
  spec.args = tc.args;
  const Words argv = RunCommand(Host(), spec, {});
  EXPECT_EQ(Values(argv, "--entrypoint"), tc.want_entrypoint_flag);
  EXPECT_EQ(AfterImage(argv, spec.image), tc.want_after_image);
}

INSTANTIATE_TEST_SUITE_P(
    Table, PodmanCommandArgsTest,
    ::testing::Values(
        CommandArgsCase{"Neither", {}, {}, {}, {}},
        CommandArgsCase{"CommandOnly", {"python3", "-m", "t"}, {}, {R"(["python3","-m","t"])"}, {}},
        CommandArgsCase{"ArgsOnly", {}, {"--lr", "0.1"}, {}, {"--lr", "0.1"}},
        CommandArgsCase{
            "Both", {"/bin/t"}, {"--job-dir", "/d"}, {R"(["/bin/t"])"}, {"--job-dir", "/d"}},
        CommandArgsCase{"QuotesAndSpacesStayOneWord",
                        {"sh", "-c", "echo \"a b\""},
                        {"x y"},
                        {R"(["sh","-c","echo \"a b\""])"},
                        {"x y"}}),
    [](const auto& tc) { return tc.param.name; });

TEST(PodmanRunCommand, GivesTheWorkingDirAndAHostsLineForEachPeer) {
  ContainerSpec spec = Spec();
  spec.working_dir = "/home/benchmarks";
  spec.hosts = {{"mnist-chief-0.team-a.svc", "127.0.0.1"},
                {"mnist-chief-0", "127.0.0.1"},
                {"mnist-worker-0.team-a.svc", "10.0.0.2"}};
  const Words argv = RunCommand(Host(), spec, {{"A", "1"}});
  EXPECT_THAT(Values(argv, "--workdir"), ElementsAre("/home/benchmarks"));
  EXPECT_THAT(Values(argv, "--add-host"),
              ElementsAre("mnist-chief-0.team-a.svc:127.0.0.1", "mnist-chief-0:127.0.0.1",
                          "mnist-worker-0.team-a.svc:10.0.0.2"));
  // With host networking: podman 4.3 still writes the lines to the container's /etc/hosts.
  const auto network = std::find(argv.begin(), argv.end(), "--network");
  const auto first_host = std::find(argv.begin(), argv.end(), "--add-host");
  EXPECT_LT(network, first_host);
  EXPECT_LT(std::find(argv.begin(), argv.end(), "--workdir"),
            std::find(argv.begin(), argv.end(), spec.image));
}

TEST(PodmanRunCommand, NoWorkingDirOrHostsAddsNoFlags) {
  const Words argv = RunCommand(Host(), Spec(), {});
  EXPECT_TRUE(Values(argv, "--workdir").empty());
  EXPECT_TRUE(Values(argv, "--add-host").empty());
  EXPECT_TRUE(Values(argv, "--user").empty());  // the image's own user
}

TEST(PodmanRunCommand, RunsAsTheServersJobUserWhenGiven) {
  ContainerSpec spec = Spec();
  spec.user = "999:995";
  const Words argv = RunCommand(Host(), spec, {});
  EXPECT_THAT(Values(argv, "--user"), ElementsAre("999:995"));
  EXPECT_LT(std::find(argv.begin(), argv.end(), "--user"),
            std::find(argv.begin(), argv.end(), spec.image));
}

TEST(PodmanRunCommand, PassesEveryVariableAsOneWordInOrder) {
  const Words argv = RunCommand(Host(), Spec(),
                                {{"A", "1"},
                                 {"CLUSTER_SPEC", R"({"cluster": {"master": ["h:1"]}})"},
                                 {"EMPTY", ""},
                                 {"CUDA_VISIBLE_DEVICES", ""}});
  EXPECT_THAT(Values(argv, "--env"),
              ElementsAre("A=1", R"(CLUSTER_SPEC={"cluster": {"master": ["h:1"]}})",
                          "EMPTY=", "CUDA_VISIBLE_DEVICES="));
}

TEST(PodmanRunCommand, MountsEachPathReadOnlyWhenAsked) {
  ContainerSpec spec = Spec();
  spec.mounts = {
      Mount{.source = "/data/buckets", .target = "/data/buckets"},
      Mount{.source = "/data/buckets", .target = "/gcs"},
      Mount{
          .source = "/opt/trainyard/python", .target = "/opt/trainyard/python", .read_only = true}};
  EXPECT_THAT(Values(RunCommand(Host(), spec, {}), "--volume"),
              ElementsAre("/data/buckets:/data/buckets", "/data/buckets:/gcs",
                          "/opt/trainyard/python:/opt/trainyard/python:ro"));
}

TEST(PodmanRunCommand, LeavesOutWhatTheHostDoesNotNeed) {
  PodmanHost host = Host();
  host.runtime.clear();
  host.init = false;
  host.ulimits.clear();
  const Words argv = RunCommand(host, Spec(), {});
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--runtime"), 0);
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--init"), 0);
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--ulimit"), 0);
}

TEST(PodmanRunCommand, GivesCdiDevicesByTheirHostIndexAndRenumbersCudaVisibleDevices) {
  PodmanHost host = Host();
  host.gpu = GpuAccess::kCdi;
  ContainerSpec spec = Spec();
  spec.device_indices = {2, 3};
  const Words argv = RunCommand(host, spec, {{"CUDA_VISIBLE_DEVICES", "2,3"}});
  EXPECT_THAT(Values(argv, "--device"), ElementsAre("nvidia.com/gpu=2", "nvidia.com/gpu=3"));
  EXPECT_THAT(Values(argv, "--env"), ElementsAre("CUDA_VISIBLE_DEVICES=0,1"));
  EXPECT_TRUE(Values(argv, "--volume").empty());
}

TEST(PodmanRunCommand, GivesDeviceNodesControlDevicesAndTheDriverWithoutCdi) {
  PodmanHost host = Host();
  host.gpu = GpuAccess::kDeviceNodes;
  host.control_devices = {"/dev/nvidiactl", "/dev/nvidia-uvm"};
  host.driver_files = {
      {"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "libcuda.so.1"},
      {"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15", "libnvidia-ml.so.1"}};
  host.driver_binaries = {"/usr/bin/nvidia-smi"};
  ContainerSpec spec = Spec();
  spec.device_indices = {1};
  const Words argv = RunCommand(host, spec, {{"CUDA_VISIBLE_DEVICES", "1"}, {"B", "2"}});
  EXPECT_THAT(Values(argv, "--device"),
              ElementsAre("/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm"));
  EXPECT_THAT(Values(argv, "--volume"),
              ElementsAre("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15:/usr/local/nvidia/lib64/"
                          "libcuda.so.1:ro",
                          "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15:/usr/local/nvidia/"
                          "lib64/libnvidia-ml.so.1:ro",
                          "/usr/bin/nvidia-smi:/usr/bin/nvidia-smi:ro"));
  EXPECT_THAT(Values(argv, "--env"), ElementsAre("CUDA_VISIBLE_DEVICES=0", "B=2",
                                                 "LD_LIBRARY_PATH=/usr/local/nvidia/lib64"));
}

TEST(PodmanRunCommand, GivesNoDeviceToAReplicaWithout) {
  PodmanHost host = Host();
  host.gpu = GpuAccess::kDeviceNodes;
  host.control_devices = {"/dev/nvidiactl"};
  host.driver_files = {{"/usr/lib/libcuda.so.1", "libcuda.so.1"}};
  const Words argv = RunCommand(host, Spec(), {{"CUDA_VISIBLE_DEVICES", ""}});
  EXPECT_TRUE(Values(argv, "--device").empty());
  EXPECT_TRUE(Values(argv, "--volume").empty());
  EXPECT_THAT(Values(argv, "--env"), ElementsAre("CUDA_VISIBLE_DEVICES="));
}

struct RegistryCase {
  std::string image;
  std::string want;
};

class RegistryOfTest : public ::testing::TestWithParam<RegistryCase> {};

TEST_P(RegistryOfTest, IsTheFirstComponentOnlyWhenItNamesAHost) {
  EXPECT_EQ(RegistryOf(GetParam().image), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(Table, RegistryOfTest,
                         ::testing::Values(RegistryCase{"127.0.0.1:5000/a/b:1", "127.0.0.1:5000"},
                                           RegistryCase{"localhost/trainer:1", "localhost"},
                                           RegistryCase{"gcr.io/p/t@sha256:ab", "gcr.io"},
                                           RegistryCase{"library/python:3", ""},
                                           RegistryCase{"trainer:1", ""},
                                           RegistryCase{"trainer", ""}));

TEST(PullCommand, SkipsTlsOnlyForTheRegistriesTheOperatorListed) {
  PodmanHost host = Host();
  host.insecure_registries = {"127.0.0.1:5000"};
  host.auth_file = "/etc/trainyard/auth.json";
  EXPECT_EQ(PullCommand(host, "127.0.0.1:5000/a:1"),
            (Words{"/usr/bin/podman", "pull", "--tls-verify=false", "--authfile",
                   "/etc/trainyard/auth.json", "127.0.0.1:5000/a:1"}));
  EXPECT_EQ(PullCommand(host, "127.0.0.1:5001/a:1"),
            (Words{"/usr/bin/podman", "pull", "--authfile", "/etc/trainyard/auth.json",
                   "127.0.0.1:5001/a:1"}));
}

TEST(RemoveCommand, KillsAndRemovesWhateverStateTheContainerIsIn) {
  EXPECT_EQ(RemoveCommand(Host(), "c"),
            (Words{"/usr/bin/podman", "rm", "-f", "--time", "0", "--ignore", "c"}));
}

TEST(KillCommand, NamesTheSignalByNumber) {
  EXPECT_EQ(KillCommand(Host(), "c", 9), (Words{"/usr/bin/podman", "kill", "--signal", "9", "c"}));
}

TEST(PullError, IsTheLastErrorLineElseTheLastLine) {
  EXPECT_EQ(PullError("Trying to pull x...\n"
                      "time=\"…\" level=warning msg=\"Failed, retrying in 1s ... (2/3)\"\n"
                      "Error: initializing source docker://x: manifest unknown\n\n"),
            "initializing source docker://x: manifest unknown");
  EXPECT_EQ(PullError("something odd\n  last words  \n"), "last words");
  EXPECT_EQ(PullError(""), "");
}

}  // namespace
}  // namespace trainyard::run::container
