// The spec a Vertex resource keeps from its create body: its members in the request's order, the
// rest never built into it.
#include "vertex/spec_document.h"

#include <span>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::vertex {
namespace {

constexpr std::string_view kCustomJobMembers[] = {"jobSpec"};
constexpr std::string_view kTuningJobMembers[] = {"studySpec", "maxTrialCount", "trialJobSpec"};

TEST(SpecDocumentTest, Table) {
  const struct {
    std::string_view name;
    std::string_view body;
    bool unwrap;
    std::string_view document;
  } cases[] = {
      {"KeepsTheRequestsOrder", R"({"displayName": "d", "jobSpec": {"b": 1, "a": [2, {"c": null}]},
          "labels": {"x": "y"}})",
       true, R"({"b":1,"a":[2,{"c":null}]})"},
      {"SkipsStringsThatLookLikeJson", R"({"displayName": "}],\"{[", "jobSpec": {"s": "{\"}"}})",
       true, R"({"s":"{\"}"})"},
      {"EscapedKey", R"({"job\u0053pec": {"a": 1}})", true, R"({"a":1})"},
      {"LastRepeatCounts", R"({"jobSpec": {"a": 1}, "jobSpec": {"a": 2}})", true, R"({"a":2})"},
      {"AbsentMember", R"({"displayName": "d"})", true, "{}"},
      {"NullMember", R"({"jobSpec": null})", true, "{}"},
      {"NotAnObject", R"([{"jobSpec": {}}])", true, "{}"},
      {"MembersInTheGivenOrder",
       R"({"trialJobSpec": {"t": true}, "maxTrialCount" : 4 , "labels": {}, "studySpec": {"s": 1}})",
       false, R"({"studySpec":{"s":1},"maxTrialCount":4,"trialJobSpec":{"t":true}})"},
      {"ScalarLast", "{\"maxTrialCount\":\n-1.5e3\n}", false, R"({"maxTrialCount":-1500.0})"},
  };
  for (const auto& c : cases) {
    const std::span<const std::string_view> members =
        c.unwrap ? std::span<const std::string_view>(kCustomJobMembers)
                 : std::span<const std::string_view>(kTuningJobMembers);
    EXPECT_EQ(SpecDocument(c.body, members, c.unwrap), c.document) << c.name;
  }
}

// The labels are never built into the order-keeping document (issue #31: 20 s).
TEST(SpecDocumentTest, HundredThousandLabelsAreSkipped) {
  nlohmann::json body = {{"displayName", "d"}, {"jobSpec", {{"workerPoolSpecs", {1, 2}}}}};
  for (int i = 0; i < 100'000; ++i) {
    body["labels"]["l" + std::to_string(i)] = "v";
  }
  EXPECT_EQ(SpecDocument(body.dump(), kCustomJobMembers, true), R"({"workerPoolSpecs":[1,2]})");
}

}  // namespace
}  // namespace trainyard::vertex
