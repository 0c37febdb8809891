// The sharing policy's JSON (issue #34): every bad field a violation of its own, nothing accepted
// half; and what is accepted reads back the same.
#include "sched/sharing_json.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

std::vector<std::string> ViolatedFields(const Status& status) {
  std::vector<std::string> fields;
  for (const FieldViolation& v : status.violations()) {
    fields.push_back(v.field);
  }
  return fields;
}

TEST(SharingJsonTest, AGoodQuotaDecodesAndEncodesBack) {
  const std::string body =
      R"({"accelerators":{"NVIDIA_TESLA_T4":4},"cpus":64,"memory":"256Gi","jobs":20,"weight":2})";
  Result<ProjectQuota> quota = DecodeProjectQuota("p", body, Catalog());
  ASSERT_TRUE(quota.ok()) << quota.status().ToString();
  EXPECT_EQ(*quota, (ProjectQuota{.project = "p",
                                  .accelerators = {{kT4, 4}},
                                  .cpus = 64,
                                  .memory_mib = 256 * 1024,
                                  .jobs = 20,
                                  .weight = 2}));
  Result<ProjectQuota> again = DecodeProjectQuota("p", EncodeProjectQuota(*quota), Catalog());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *quota);
  Result<ProjectQuota> empty = DecodeProjectQuota("p", "{}", Catalog());
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, ProjectQuota{.project = "p"});
}

TEST(SharingJsonTest, EachBadFieldIsAViolationOfItsOwn) {
  struct JsonCase {
    std::string body;
    std::vector<std::string> fields;
  };
  const std::vector<JsonCase> cases = {
      {R"({"accelerators":{"NVIDIA_TESLA_T5":1}})", {"accelerators.NVIDIA_TESLA_T5"}},
      {R"({"accelerators":{"NVIDIA_TESLA_T4":-1}})", {"accelerators.NVIDIA_TESLA_T4"}},
      {R"({"accelerators":[1]})", {"accelerators"}},
      {R"({"cpus":-4})", {"cpus"}},
      {R"({"cpus":"64"})", {"cpus"}},
      {R"({"jobs":1.5})", {"jobs"}},
      {R"({"weight":0})", {"weight"}},
      {R"({"memory":"256GB"})", {"memory"}},
      {R"({"memory":"0Gi"})", {"memory"}},
      {R"({"memory":256})", {"memory"}},
      {R"({"project":"q"})", {"project"}},
      {R"({"gpus":4})", {"gpus"}},
      {R"({"cpus":-1,"weight":0,"color":"red","memory":"x"})",
       {"color", "cpus", "memory", "weight"}},
      // In the body's order (its members sorted by name), an object's entries with it.
      {R"({"zz":1,"accelerators":{"NVIDIA_TESLA_T4":-1,"A":1},"cpus":-1,"b":2})",
       {"accelerators.A", "accelerators.NVIDIA_TESLA_T4", "b", "cpus", "zz"}},
      {R"([1])", {""}},
      {R"(not json)", {""}},
  };
  for (const JsonCase& c : cases) {
    Result<ProjectQuota> quota = DecodeProjectQuota("p", c.body, Catalog());
    ASSERT_FALSE(quota.ok()) << c.body;
    EXPECT_EQ(quota.status().code(), Code::kInvalidArgument) << c.body;
    EXPECT_EQ(ViolatedFields(quota.status()), c.fields) << c.body;
  }
}

// What `trainyard quota set` prints: each message says what is wrong with the field it is on.
TEST(SharingJsonTest, EachViolationSaysWhatIsWrong) {
  struct MessageCase {
    std::string body;
    std::string field;
    std::string message;
  };
  const std::vector<MessageCase> cases = {
      {R"({"accelerators":{"NVIDIA_TESLA_T5":1}})", "accelerators.NVIDIA_TESLA_T5",
       "'NVIDIA_TESLA_T5' is not an accelerator type of the catalog (trainyard catalog "
       "accelerators)"},
      {R"({"accelerators":{"NVIDIA_TESLA_T4":-1}})", "accelerators.NVIDIA_TESLA_T4",
       "-1 is out of range: expected 0 to 1000000"},
      // Shows what came, as every other wrong type does (the JSON reader's words, since it reads
      // the policy).
      {R"({"accelerators":[1]})", "accelerators",
       "expected an object of accelerator names to counts, got [1]"},
      {R"({"cpus":18446744073709551615})", "cpus",
       "expected a whole number, got 18446744073709551615"},
      {R"({"cpus":"64"})", "cpus", R"(expected a whole number, got "64")"},
      {R"({"jobs":1.5})", "jobs", "expected a whole number, got 1.5"},
      {R"({"cpus":null})", "cpus", "expected a whole number, got null"},
      {R"({"jobs":1000001})", "jobs", "1000001 is out of range: expected 0 to 1000000"},
      {R"({"weight":0})", "weight", "a project's weight is at least 1"},
      {R"({"memory":"256GB"})", "memory",
       R"('256GB' is not a memory quantity: expected a positive whole number with Mi, Gi or Ti, )"
       R"(as "256Gi")"},
      {R"({"memory":256})", "memory", R"(expected a quantity such as "256Gi", got 256)"},
      {R"({"project":"q"})", "project", R"("q" is not the project of the path, p)"},
      {R"({"gpus":4})", "gpus",
       "unknown field: expected project, accelerators, cpus, memory, jobs or weight"},
      {R"([1])", "", R"(expected a JSON object, as {"accelerators": {"NVIDIA_TESLA_T4": 4}})"},
  };
  for (const MessageCase& c : cases) {
    Result<ProjectQuota> quota = DecodeProjectQuota("p", c.body, Catalog());
    ASSERT_FALSE(quota.ok()) << c.body;
    ASSERT_EQ(quota.status().violations().size(), 1U) << c.body;
    EXPECT_EQ(quota.status().violations()[0].field, c.field) << c.body;
    EXPECT_EQ(quota.status().violations()[0].description, c.message) << c.body;
  }
}

TEST(SharingJsonTest, MemoryQuantities) {
  const std::vector<std::pair<std::string, std::int64_t>> good = {
      {"1Mi", 1}, {"1536Mi", 1536}, {"256Gi", 262144}, {"2Ti", 2097152}};
  for (const auto& [text, mib] : good) {
    Result<std::int64_t> parsed = ParseMemoryMib(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_EQ(*parsed, mib) << text;
  }
  EXPECT_EQ(MemoryQuantity(0), "0");
  EXPECT_EQ(MemoryQuantity(1536), "1536Mi");
  EXPECT_EQ(MemoryQuantity(262144), "256Gi");
  EXPECT_EQ(MemoryQuantity(2097152), "2Ti");
  for (const std::string bad :
       {"", "Gi", "256", "256G", "256gi", "-1Gi", "0Mi", "1.5Gi", "256Gi ", "99999999999999Ti"}) {
    EXPECT_FALSE(ParseMemoryMib(bad).ok()) << bad;
  }
}

TEST(SharingJsonTest, PriorityClasses) {
  Result<int> high = DecodePriorityClass("high-priority", R"({"value":1000})");
  ASSERT_TRUE(high.ok()) << high.status().ToString();
  EXPECT_EQ(*high, 1000);
  struct ClassCase {
    std::string name;
    std::string body;
    std::vector<std::string> fields;
  };
  const std::vector<ClassCase> cases = {
      {"High", R"({"value":1})", {"name"}},
      {"-a", R"({"value":1})", {"name"}},
      {"a", R"({"value":1001})", {"value"}},
      {"a", R"({"value":-1})", {"value"}},
      {"a", R"({})", {"value"}},
      {"a", R"({"value":1,"x":2})", {"x"}},
      {"a", R"({"value":1001,"x":2})", {"x", "value"}},
      {"", R"([])", {"name", ""}},
  };
  for (const ClassCase& c : cases) {
    Result<int> value = DecodePriorityClass(c.name, c.body);
    ASSERT_FALSE(value.ok()) << c.name << c.body;
    EXPECT_EQ(ViolatedFields(value.status()), c.fields) << c.name << c.body;
  }
  const std::vector<std::pair<std::string, std::string>> messages = {
      {R"({"value":1001})",
       "expected a whole number from 0 to 1000 (ml v1's scheduling.priority), got 1001"},
      {R"({})", "expected a whole number from 0 to 1000 (ml v1's scheduling.priority), got null"},
      {R"({"value":"1"})",
       R"(expected a whole number from 0 to 1000 (ml v1's scheduling.priority), got "1")"},
      {R"({"value":1,"x":2})", "unknown field: expected value"},
      {R"([])", R"(expected a JSON object, as {"value": 1000})"},
  };
  for (const auto& [body, message] : messages) {
    Result<int> value = DecodePriorityClass("a", body);
    ASSERT_FALSE(value.ok()) << body;
    ASSERT_EQ(value.status().violations().size(), 1U) << body;
    EXPECT_EQ(value.status().violations()[0].description, message) << body;
  }
}

TEST(SharingJsonTest, ThePolicyEncodesEveryProjectAndClass) {
  SharingPolicy policy;
  policy.projects = {{.project = "a", .weight = 2}};
  policy.priority_classes = {{"high", 1000}};
  EXPECT_EQ(
      EncodeSharingPolicy(policy),
      R"({"priorityClasses":{"high":1000},"projects":[{"accelerators":{},"project":"a","weight":2}]})");
}

}  // namespace
}  // namespace trainyard::sched
