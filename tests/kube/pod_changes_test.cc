#include "kube/pod_changes.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::kube {
namespace {

// Pods by name with their phase: {"a", "Running"} is pod "ns/a" in phase Running.
using Phases = std::map<std::string, std::string>;

std::map<std::string, Pod> PodsWith(const Phases& phases) {
  std::map<std::string, Pod> pods;
  for (const auto& [name, phase] : phases) {
    pods["ns/" + name] = Pod{.name = name, .namespace_name = "ns", .phase = phase};
  }
  return pods;
}

struct ChangeCase {
  std::string name;
  Phases before;
  Phases after;
  std::vector<std::string> changes;  // "TYPE name phase"
};

class PodChangesTest : public ::testing::TestWithParam<ChangeCase> {};

TEST_P(PodChangesTest, SaysWhatChanged) {
  std::vector<std::string> said;
  for (const PodChange& change :
       PodChanges(PodsWith(GetParam().before), PodsWith(GetParam().after))) {
    said.push_back(change.type + " " + change.pod.name + " " + change.pod.phase);
  }
  EXPECT_EQ(said, GetParam().changes);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PodChangesTest,
    ::testing::Values(ChangeCase{"NothingToNothing", {}, {}, {}},
                      ChangeCase{"FirstPollAddsAll",
                                 {},
                                 {{"a", "Pending"}, {"b", "Running"}},
                                 {"ADDED a Pending", "ADDED b Running"}},
                      ChangeCase{"SamePodsSayNothing", {{"a", "Running"}}, {{"a", "Running"}}, {}},
                      ChangeCase{"ChangedPodIsModified",
                                 {{"a", "Pending"}, {"b", "Running"}},
                                 {{"a", "Running"}, {"b", "Running"}},
                                 {"MODIFIED a Running"}},
                      ChangeCase{"GonePodIsDeletedAsLastSent",
                                 {{"a", "Succeeded"}, {"b", "Running"}},
                                 {{"b", "Running"}},
                                 {"DELETED a Succeeded"}},
                      ChangeCase{"DeletionsComeLast",
                                 {{"a", "Running"}},
                                 {{"b", "Pending"}},
                                 {"ADDED b Pending", "DELETED a Running"}}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::kube
