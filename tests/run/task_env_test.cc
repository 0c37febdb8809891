#include "run/slurm/task_env.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::run::slurm {
namespace {

using Env = std::map<std::string, std::string, std::less<>>;
using Nodes = std::vector<std::vector<std::string>>;

GetEnv From(const Env& env) {
  return [&env](std::string_view name) -> std::optional<std::string> {
    const auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

// What task 2 of a 2-component het job saw on the test cluster (srun --het-group=0,1; component
// 0 one task on n1, component 1 two tasks on n2 and n3).
Env HetTask2() {
  return {{"SLURM_PROCID", "2"},
          {"SLURM_HET_SIZE", "2"},
          {"SLURM_JOB_NODELIST", "n[1-3]"},
          {"SLURM_JOB_NODELIST_HET_GROUP_0", "n1"},
          {"SLURM_NTASKS_HET_GROUP_0", "1"},
          {"SLURM_JOB_NODELIST_HET_GROUP_1", "n[2-3]"},
          {"SLURM_NTASKS_HET_GROUP_1", "2"}};
}

Env PlainTask1() {
  return {{"SLURM_PROCID", "1"}, {"SLURM_JOB_NODELIST", "gpu-[08-10]"}, {"SLURM_NTASKS", "3"}};
}

TEST(TaskLayoutFromEnv, ReadsAHetJobsComponents) {
  const Env env = HetTask2();
  const Result<TaskLayout> layout = TaskLayoutFromEnv(From(env));
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(*layout, (TaskLayout{.procid = 2, .component_nodes = Nodes{{"n1"}, {"n2", "n3"}}}));
  EXPECT_EQ(layout->TaskCount(), 3);
}

TEST(TaskLayoutFromEnv, ReadsAPlainJobAsOneComponent) {
  const Env env = PlainTask1();
  const Result<TaskLayout> layout = TaskLayoutFromEnv(From(env));
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(*layout,
            (TaskLayout{.procid = 1, .component_nodes = Nodes{{"gpu-08", "gpu-09", "gpu-10"}}}));
}

TEST(TaskLayoutFromEnv, GivesEachTaskTheFirstNodesWhenThereAreMoreNodes) {
  Env env = PlainTask1();
  env["SLURM_NTASKS"] = "2";
  const Result<TaskLayout> layout = TaskLayoutFromEnv(From(env));
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(layout->component_nodes, (Nodes{{"gpu-08", "gpu-09"}}));
}

TEST(TaskLayoutFromEnv, IsFailedPreconditionOutsideAJobStep) {
  const Env env = {{"SLURM_JOB_NODELIST", "n1"}, {"SLURM_NTASKS", "1"}};
  const Result<TaskLayout> layout = TaskLayoutFromEnv(From(env));
  ASSERT_FALSE(layout.ok());
  EXPECT_EQ(layout.status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(layout.status().message(), "not inside a Slurm job step: SLURM_PROCID is not set");
}

TEST(TaskLayout, CountsNoTasksWithoutComponents) {
  EXPECT_EQ(TaskLayout{}.TaskCount(), 0);
}

struct BadEnvCase {
  std::string name;
  Env env;
  std::string variable;  // the violation's field
};

class TaskLayoutBadEnvTest : public ::testing::TestWithParam<BadEnvCase> {};

TEST_P(TaskLayoutBadEnvTest, IsInvalidArgumentNamingTheVariable) {
  const Result<TaskLayout> layout = TaskLayoutFromEnv(From(GetParam().env));
  ASSERT_FALSE(layout.ok());
  EXPECT_EQ(layout.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(layout.status().violations().size(), 1u) << layout.status().ToString();
  EXPECT_EQ(layout.status().violations()[0].field, GetParam().variable);
}

Env With(Env env, const std::string& name, std::optional<std::string> value) {
  if (value) {
    env[name] = *value;
  } else {
    env.erase(name);
  }
  return env;
}

INSTANTIATE_TEST_SUITE_P(
    Table, TaskLayoutBadEnvTest,
    ::testing::Values(
        BadEnvCase{"ProcidNotANumber", With(HetTask2(), "SLURM_PROCID", "two"), "SLURM_PROCID"},
        BadEnvCase{"ProcidNegative", With(HetTask2(), "SLURM_PROCID", "-1"), "SLURM_PROCID"},
        BadEnvCase{"ProcidPastTheTasks", With(HetTask2(), "SLURM_PROCID", "3"), "SLURM_PROCID"},
        BadEnvCase{"HetSizeZero", With(HetTask2(), "SLURM_HET_SIZE", "0"), "SLURM_HET_SIZE"},
        BadEnvCase{"HetSizeNotANumber", With(HetTask2(), "SLURM_HET_SIZE", "2x"), "SLURM_HET_SIZE"},
        BadEnvCase{"HetSizeHuge", With(HetTask2(), "SLURM_HET_SIZE", "2147483647"),
                   "SLURM_NTASKS_HET_GROUP_2"},
        BadEnvCase{"GroupNodelistMissing",
                   With(HetTask2(), "SLURM_JOB_NODELIST_HET_GROUP_1", std::nullopt),
                   "SLURM_JOB_NODELIST_HET_GROUP_1"},
        BadEnvCase{"GroupTasksMissing", With(HetTask2(), "SLURM_NTASKS_HET_GROUP_0", std::nullopt),
                   "SLURM_NTASKS_HET_GROUP_0"},
        BadEnvCase{"GroupTasksZero", With(HetTask2(), "SLURM_NTASKS_HET_GROUP_0", "0"),
                   "SLURM_NTASKS_HET_GROUP_0"},
        BadEnvCase{"GroupNodelistMalformed",
                   With(HetTask2(), "SLURM_JOB_NODELIST_HET_GROUP_1", "n[2-3"),
                   "SLURM_JOB_NODELIST_HET_GROUP_1"},
        BadEnvCase{"GroupMoreTasksThanNodes", With(HetTask2(), "SLURM_NTASKS_HET_GROUP_1", "3"),
                   "SLURM_JOB_NODELIST_HET_GROUP_1"},
        BadEnvCase{"NodelistMissing", With(PlainTask1(), "SLURM_JOB_NODELIST", std::nullopt),
                   "SLURM_JOB_NODELIST"},
        BadEnvCase{"NtasksMissing", With(PlainTask1(), "SLURM_NTASKS", std::nullopt),
                   "SLURM_NTASKS"},
        BadEnvCase{"NtasksNotANumber", With(PlainTask1(), "SLURM_NTASKS", " 3"), "SLURM_NTASKS"},
        BadEnvCase{"MoreTasksThanNodes", With(PlainTask1(), "SLURM_NTASKS", "4"),
                   "SLURM_JOB_NODELIST"}),
    [](const auto& tc) { return tc.param.name; });

struct DeviceCase {
  std::string name;
  std::string value;
  std::optional<std::vector<int>> devices;  // nullopt: INVALID_ARGUMENT
};

class ParseDeviceListTest : public ::testing::TestWithParam<DeviceCase> {};

TEST_P(ParseDeviceListTest, ReadsSlurmsDeviceIndexes) {
  const Result<std::vector<int>> devices = ParseDeviceList(GetParam().value);
  if (!GetParam().devices) {
    ASSERT_FALSE(devices.ok());
    EXPECT_EQ(devices.status().code(), Code::kInvalidArgument);
    return;
  }
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  EXPECT_EQ(*devices, *GetParam().devices);
}

INSTANTIATE_TEST_SUITE_P(Table, ParseDeviceListTest,
                         ::testing::Values(DeviceCase{"Empty", "", std::vector<int>{}},
                                           DeviceCase{"One", "0", std::vector<int>{0}},
                                           DeviceCase{"Two", "0,1", std::vector<int>{0, 1}},
                                           DeviceCase{"AsGiven", "3,1", std::vector<int>{3, 1}},
                                           DeviceCase{"NoDevFiles", "NoDevFiles", std::nullopt},
                                           DeviceCase{"EmptyEntry", "0,,1", std::nullopt},
                                           DeviceCase{"TrailingComma", "0,", std::nullopt},
                                           DeviceCase{"Negative", "-1", std::nullopt},
                                           DeviceCase{"Spaces", "0, 1", std::nullopt},
                                           DeviceCase{"Uuid", "GPU-5f3c", std::nullopt},
                                           DeviceCase{"TooBig", "99999999999", std::nullopt}),
                         [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::run::slurm
