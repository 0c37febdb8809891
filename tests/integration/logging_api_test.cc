// The logging v2 entries:list endpoint over real HTTP, as `gcloud ai-platform jobs stream-logs`
// calls it (docs/reference/ai-platform-training.md §10), reading record files placed in the live
// server's data dir.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "base/time_format.h"
#include "control/job_layout.h"
#include "integration/live_server.h"
#include "logs/log_record.h"

namespace trainyard::testing {
namespace {

using nlohmann::json;

constexpr std::string_view kPath = "/v2/entries:list?alt=json";
constexpr std::string_view kTypes = R"((resource.type="ml_job" OR resource.type="cloudml_job"))";
constexpr std::string_view kFirstLower = R"(timestamp>="1970-01-01T01:00:00.000000000Z")";

const WallTime kBase = *ParseTimestamp("2026-11-21T09:35:01Z");

std::string Ts(std::int64_t millis) {
  return FormatTimestampMicros(kBase + std::chrono::milliseconds(millis));
}

// gcloud's filter (docs/reference/ai-platform-training.md §10.1): the job, maybe a task, a lower
// and an upper bound.
std::string GcloudFilter(const std::string& job, const std::string& lower,
                         const std::string& upper_ts, const std::string& task = "") {
  std::string filter = std::string(kTypes) + " AND resource.labels.job_id=\"" + job + "\"";
  if (!task.empty()) {
    filter +=
        " AND (resource.labels.task_name=\"" + task + "\" OR labels.task_name=\"" + task + "\")";
  }
  return filter + " AND " + lower + " AND timestamp<\"" + upper_ts + "\"";
}

// The lower bound of a follow-up poll, from the last entry shown.
std::string FollowUpLower(const json& last) {
  const std::string ts = last["timestamp"];
  const std::string id = last["insertId"];
  return "((timestamp=\"" + ts + "\" AND insertId>\"" + id + "\") OR timestamp>\"" + ts + "\")";
}

json GcloudBody(const std::string& filter, int page_size = 1000) {
  return {{"filter", filter},
          {"orderBy", "timestamp asc"},
          {"pageSize", page_size},
          {"resourceNames", {"projects/proj"}}};
}

class LoggingApiTest : public ::testing::Test {
 protected:
  // Appends a record to the file of `task` (a "trial-<n>/<task>" path for a trial) of `job`.
  void Add(const std::string& job, const std::string& task, const std::string& ts,
           const std::string& text, logs::Stream stream = logs::Stream::kStdout) {
    std::string& bytes =
        files_[control::JobLayout(server_.dir().path().string(), "proj", job).log_path(task)];
    logs::AppendRecord(bytes, ts, stream, text);
  }
  void Write() {
    for (const auto& [path, bytes] : files_) {
      std::filesystem::create_directories(std::filesystem::path(path).parent_path());
      std::ofstream(path, std::ios::binary) << bytes;
    }
  }
  // A job with a master, two workers, service messages, a stderr line and equal timestamps.
  void WriteJob() {
    Add("job_1", "service", Ts(0), "Validating job requirements...");
    for (int i = 0; i < 10; ++i) {
      Add("job_1", "master-replica-0", Ts(100 + i / 3), "master line " + std::to_string(i));
      Add("job_1", "worker-replica-0", Ts(100 + i / 3), "worker0 line " + std::to_string(i));
      Add("job_1", "worker-replica-1", Ts(200 + i), "worker1 line " + std::to_string(i));
    }
    Add("job_1", "master-replica-0", Ts(300),
        "Traceback (most recent call last):", logs::Stream::kStderr);
    Add("job_1", "master-replica-0", Ts(301), "WARNING:root:slow step", logs::Stream::kStderr);
    Add("job_1", "service", Ts(400), "Job completed successfully.");
    Add("job_2", "master-replica-0", Ts(100), "another job");
    Write();
  }

  json List(const json& body, int expected_status = 200) {
    const ClientResponse response = client_.Post(kPath, body.dump());
    EXPECT_EQ(response.status, expected_status) << response.body;
    return Body(response);
  }

  // Every entry of a query, following nextPageToken; `pages` counts the requests.
  std::vector<json> ListAll(json body, int* pages) {
    std::vector<json> all;
    *pages = 0;
    while (*pages < 1000) {
      const json page = List(body);
      ++*pages;
      for (const json& entry : page.value("entries", json::array())) {
        all.push_back(entry);
      }
      if (!page.contains("nextPageToken")) {
        break;
      }
      body["pageToken"] = page["nextPageToken"];
    }
    return all;
  }

  // The printed text of each entry of `entries` (a JSON array).
  static std::vector<std::string> Texts(const json& entries) {
    std::vector<std::string> texts;
    for (const json& entry : entries) {
      texts.push_back(entry.contains("textPayload") ? entry["textPayload"]
                                                    : entry["jsonPayload"]["message"]);
    }
    return texts;
  }

  LiveServer server_;
  HttpClient client_{server_.port()};
  std::map<std::string, std::string> files_;
};

TEST_F(LoggingApiTest, AnswersGcloudsFirstPollAndItsFollowUp) {
  WriteJob();
  // The first poll's upper bound (client now - 5 s) falls among the worker-replica-1 lines.
  const json first = List(GcloudBody(GcloudFilter("job_1", std::string(kFirstLower), Ts(205))));
  ASSERT_TRUE(first.contains("entries")) << first;
  EXPECT_FALSE(first.contains("nextPageToken"));
  const std::vector<json>& shown = first["entries"].get_ref<const json::array_t&>();
  ASSERT_EQ(shown.size(), 1u + 20u + 5u);
  EXPECT_EQ(shown.front()["jsonPayload"]["message"], "Validating job requirements...");
  for (std::size_t i = 1; i < shown.size(); ++i) {  // what gcloud's duplicate check relies on
    EXPECT_LT(std::tie(shown[i - 1]["timestamp"].get_ref<const std::string&>(),
                       shown[i - 1]["insertId"].get_ref<const std::string&>()),
              std::tie(shown[i]["timestamp"].get_ref<const std::string&>(),
                       shown[i]["insertId"].get_ref<const std::string&>()));
  }

  const json next =
      List(GcloudBody(GcloudFilter("job_1", FollowUpLower(shown.back()), Ts(10'000))));
  EXPECT_EQ(Texts(next["entries"]),
            (std::vector<std::string>{
                "worker1 line 5", "worker1 line 6", "worker1 line 7", "worker1 line 8",
                "worker1 line 9", "Traceback (most recent call last):", "WARNING:root:slow step",
                "Job completed successfully."}));
  // Nothing new: an empty answer is {}.
  const json again =
      List(GcloudBody(GcloudFilter("job_1", FollowUpLower(next["entries"].back()), Ts(10'000))));
  EXPECT_EQ(again, json::object());
}

TEST_F(LoggingApiTest, EntriesHaveTheLogEntryShape) {
  Add("job_1", "master-replica-0", Ts(1), "Epoch 1/10");
  Add("job_1", "master-replica-0", Ts(2), "bad \xFF byte", logs::Stream::kStderr);
  Add("job_1", "service", Ts(3), "Job completed successfully.");
  Add("job_1", "trial-3/master-replica-0", Ts(4), "trial says hi");
  Write();
  const json page = List(GcloudBody(GcloudFilter("job_1", std::string(kFirstLower), Ts(9))));
  ASSERT_EQ(page["entries"].size(), 4u) << page;
  const json resource = {
      {"type", "ml_job"},
      {"labels", {{"job_id", "job_1"}, {"task_name", "master-replica-0"}, {"project_id", "proj"}}}};
  EXPECT_EQ(page["entries"][0], (json{{"insertId", "0000000000000000-master-replica-0"},
                                      {"logName", "projects/proj/logs/master-replica-0"},
                                      {"resource", resource},
                                      {"timestamp", Ts(1)},
                                      {"receiveTimestamp", Ts(1)},
                                      {"severity", "INFO"},
                                      {"textPayload", "Epoch 1/10"}}));
  EXPECT_EQ(page["entries"][1]["severity"], "ERROR");
  EXPECT_EQ(page["entries"][1]["textPayload"], "bad \xEF\xBF\xBD byte");
  const json& service = page["entries"][2];
  EXPECT_EQ(service["resource"]["labels"]["task_name"], "service");
  EXPECT_EQ(service["jsonPayload"], (json{{"message", "Job completed successfully."}}));
  EXPECT_FALSE(service.contains("textPayload"));
  const json& trial = page["entries"][3];
  EXPECT_EQ(trial["labels"], (json{{"ml.googleapis.com/trial_id", "3"}}));
  EXPECT_EQ(trial["insertId"], "0000000000000000-trial-3/master-replica-0");
  EXPECT_FALSE(page["entries"][0].contains("labels"));
}

TEST_F(LoggingApiTest, PagesWithNextPageTokenInBothOrders) {
  for (int i = 0; i < 2500; ++i) {
    Add("job_1", i % 2 == 0 ? "master-replica-0" : "worker-replica-0", Ts(i / 100),
        "line " + std::to_string(i));
  }
  Write();
  json body = GcloudBody(GcloudFilter("job_1", std::string(kFirstLower), Ts(1'000)));
  int pages = 0;
  const std::vector<json> ascending = ListAll(body, &pages);
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(ascending.size(), 2500u);
  json unsized = body;
  unsized.erase("pageSize");  // Cloud Logging's default page: 50
  EXPECT_EQ(List(unsized)["entries"].size(), 50u);
  body["orderBy"] = "timestamp desc";
  body["pageSize"] = 300;
  std::vector<json> descending = ListAll(body, &pages);
  EXPECT_EQ(pages, 9);
  std::ranges::reverse(descending);
  EXPECT_TRUE(descending == ascending);
}

TEST_F(LoggingApiTest, FiltersByTaskNameSeverityAndTime) {
  WriteJob();
  const std::string upper = Ts(10'000);
  const json task =
      List(GcloudBody(GcloudFilter("job_1", std::string(kFirstLower), upper, "worker-replica-1")));
  EXPECT_EQ(task["entries"].size(), 10u);
  for (const json& entry : task["entries"]) {
    EXPECT_EQ(entry["resource"]["labels"]["task_name"], "worker-replica-1");
  }
  const json severe = List(GcloudBody("resource.labels.job_id=\"job_1\" AND severity>=WARNING"));
  EXPECT_EQ(
      Texts(severe["entries"]),
      (std::vector<std::string>{"Traceback (most recent call last):", "WARNING:root:slow step"}));
  const json window = List(GcloudBody("timestamp>=\"" + Ts(202) + "\" AND timestamp<=\"" + Ts(204) +
                                      "\""));  // every job of the project
  EXPECT_EQ(Texts(window["entries"]),
            (std::vector<std::string>{"worker1 line 2", "worker1 line 3", "worker1 line 4"}));
  // The project may come from the filter instead of resourceNames.
  const json by_filter = List(
      json{{"filter", "resource.labels.project_id=\"proj\" AND resource.labels.job_id=\"job_2\""}});
  EXPECT_EQ(Texts(by_filter["entries"]), std::vector<std::string>{"another job"});
  // `projectIds` (deprecated) names projects too; another project has nothing.
  EXPECT_EQ(List(json{{"projectIds", {"other"}}}), json::object());
  EXPECT_EQ(List(json{{"projectIds", {"proj"}}, {"pageSize", 2}})["entries"].size(), 2u);
}

struct BadLogCase {
  std::string name;
  std::string body;
  std::string field;    // the field violation's field
  std::string message;  // a part of the error message
};

void PrintTo(const BadLogCase& c, std::ostream* os) {
  *os << c.name;
}

class LoggingApiBadRequestTest : public LoggingApiTest,
                                 public ::testing::WithParamInterface<BadLogCase> {};

TEST_P(LoggingApiBadRequestTest, IsInvalidArgumentNamingTheField) {
  WriteJob();
  const BadLogCase& c = GetParam();
  const ClientResponse response = client_.Post(kPath, c.body);
  ASSERT_EQ(response.status, 400) << response.body;
  const json error = Body(response)["error"];
  EXPECT_EQ(error["status"], "INVALID_ARGUMENT");
  EXPECT_NE(error["message"].get<std::string>().find(c.message), std::string::npos)
      << error["message"];
  ASSERT_TRUE(error.contains("details")) << error;
  EXPECT_EQ(error["details"][0]["fieldViolations"][0]["field"], c.field) << error;
}

const std::string kProject = R"("resourceNames":["projects/proj"])";

INSTANTIATE_TEST_SUITE_P(
    Requests, LoggingApiBadRequestTest,
    ::testing::Values(
        BadLogCase{"NotJson", "{\"filter\": ", "", "Invalid JSON payload"},
        BadLogCase{"NotAnObject", "[1]", "", "Expected a JSON object"},
        BadLogCase{"UnknownField", "{" + kProject + ",\"limit\":3}", "limit",
                   "Unknown name \"limit\": Cannot find field."},
        // Type errors in Google's words for every JSON API here (base/json_dialects.h's ml v1).
        BadLogCase{"FilterNotAString", "{" + kProject + ",\"filter\":3}", "filter",
                   "Invalid value at 'filter' (TYPE_STRING), 3: expected a string"},
        BadLogCase{"UnknownFilterField", "{" + kProject + R"(,"filter":"color=\"red\""})", "filter",
                   "color"},
        BadLogCase{"UnbalancedFilter", "{" + kProject + R"(,"filter":"(severity>=ERROR"})",
                   "filter", ""},
        BadLogCase{"OrderBySeverity", "{" + kProject + R"(,"orderBy":"severity desc"})", "orderBy",
                   "timestamp desc"},
        BadLogCase{"PageSizeTooLarge", "{" + kProject + R"(,"pageSize":1001})", "pageSize",
                   "from 0 to 1000"},
        BadLogCase{"PageSizeNegative", "{" + kProject + R"(,"pageSize":-1})", "pageSize",
                   "from 0 to 1000"},
        BadLogCase{"ResourceNamesNotAList", R"({"resourceNames":"projects/proj"})", "resourceNames",
                   "expected a JSON array"},
        BadLogCase{"PageSizeNotANumber", "{" + kProject + R"(,"pageSize":"ten"})", "pageSize",
                   "\"ten\": not a base-10 integer"},
        BadLogCase{"MalformedToken", "{" + kProject + R"(,"pageToken":"abc"})", "pageToken",
                   "malformed"},
        BadLogCase{"NoProject", R"({"filter":"severity>=ERROR"})", "resourceNames",
                   "Name the project"},
        BadLogCase{"NotAProject", R"({"resourceNames":["organizations/1"]})", "resourceNames[0]",
                   "projects/<PROJECT_ID>"},
        BadLogCase{"BadProjectId", R"({"resourceNames":["projects/../x"]})", "resourceNames[0]",
                   "malformed"}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(LoggingApiTest, RejectsATokenUsedWithAnotherQueryOrAltered) {
  WriteJob();
  json body = GcloudBody(GcloudFilter("job_1", std::string(kFirstLower), Ts(10'000)), 5);
  const json first = List(body);
  ASSERT_TRUE(first.contains("nextPageToken")) << first;
  const std::string token = first["nextPageToken"];

  json other = GcloudBody(GcloudFilter("job_2", std::string(kFirstLower), Ts(10'000)), 5);
  other["pageToken"] = token;
  const json wrong_filter = List(other, 400);
  EXPECT_NE(wrong_filter["error"]["message"].get<std::string>().find("different filter"),
            std::string::npos)
      << wrong_filter;
  body["orderBy"] = "timestamp desc";
  body["pageToken"] = token;
  EXPECT_EQ(List(body, 400)["error"]["details"][0]["fieldViolations"][0]["field"], "pageToken");

  body["orderBy"] = "timestamp asc";
  std::string altered = token;
  altered[altered.size() / 2] = altered[altered.size() / 2] == '0' ? '1' : '0';
  body["pageToken"] = altered;
  EXPECT_NE(List(body, 400)["error"]["message"].get<std::string>().find("altered"),
            std::string::npos);
  body["pageToken"] = token;
  EXPECT_EQ(List(body)["entries"].size(), 5u);
}

}  // namespace
}  // namespace trainyard::testing
