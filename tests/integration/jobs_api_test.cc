// Every ml v1 endpoint over real HTTP, against the real controller and SQLite store.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/time_format.h"
#include "integration/live_server.h"

namespace trainyard::testing {
namespace {

class JobsApiTest : public ::testing::Test {
 protected:
  // Creates `ValidJob(id)` (with `labels`), asserting success; returns the response body.
  nlohmann::json Create(const std::string& id, nlohmann::json labels = nullptr) {
    nlohmann::json job = ValidJob(id);
    if (!labels.is_null()) {
      job["labels"] = std::move(labels);
    }
    const ClientResponse response = client_.Post(JobsPath() + "?alt=json", job.dump());
    EXPECT_EQ(response.status, 200) << response.body;
    return Body(response);
  }

  // The rpc error of `response`, checking its shape and that `code` matches the HTTP status.
  static nlohmann::json Error(const ClientResponse& response) {
    EXPECT_EQ(response.Header("content-type"), "application/json; charset=UTF-8");
    nlohmann::json error = Body(response)["error"];
    EXPECT_EQ(error["code"], response.status) << response.body;
    EXPECT_TRUE(error["message"].is_string() && !error["message"].get<std::string>().empty());
    return error;
  }

  LiveServer server_;
  HttpClient client_{server_.port()};
};

TEST_F(JobsApiTest, CreateEchoesTheStoredQueuedJob) {
  const ClientResponse response = client_.Post(JobsPath() + "?alt=json", ValidJob("job_1").dump());
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.Header("content-type"), "application/json; charset=UTF-8");
  const nlohmann::json job = Body(response);
  EXPECT_EQ(job["jobId"], "job_1");
  EXPECT_EQ(job["state"], "QUEUED");
  ASSERT_TRUE(job["createTime"].is_string());
  EXPECT_TRUE(ParseTimestamp(job["createTime"].get<std::string>()).has_value())
      << job["createTime"];
  ASSERT_TRUE(job["etag"].is_string());
  EXPECT_TRUE(IsPaddedBase64(job["etag"].get<std::string>())) << job["etag"];
  EXPECT_FALSE(job.contains("endTime"));
  EXPECT_EQ(job["trainingInput"]["region"], "us-central1");
  EXPECT_EQ(job["trainingInput"]["args"], (nlohmann::json{"--epochs", "3"}));

  const ClientResponse got = client_.Get(JobPath("job_1") + "?alt=json");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(Body(got), job);
}

TEST_F(JobsApiTest, CreateAcceptsTheBodyGcloudSends) {
  // docs/reference/ai-platform-training.md §1.4, captured from `gcloud ai-platform jobs submit
  // training`.
  const auto body = R"({"jobId":"job_1","labels":{"a":"b"},
    "trainingInput":{"args":["--foo=bar","--x","1"],"enableWebAccess":false,"jobDir":"gs://bkt1/out",
      "masterConfig":{"acceleratorConfig":{"count":"1","type":"NVIDIA_TESLA_T4"}},
      "masterType":"n1-standard-4","packageUris":["gs://bkt1/job_1/abc/trainer-0.0.0.tar.gz"],
      "parameterServerCount":"1","parameterServerType":"n1-standard-4",
      "pythonModule":"trainer.task","pythonVersion":"3.7","region":"us-central1",
      "runtimeVersion":"2.11","scaleTier":"CUSTOM","workerCount":"2",
      "workerType":"n1-standard-4"}})";
  const ClientResponse response = client_.Post(JobsPath() + "?alt=json", body);
  ASSERT_EQ(response.status, 200) << response.body;
  const nlohmann::json job = Body(response);
  EXPECT_EQ(job["trainingInput"]["workerCount"], "2");  // int64 as a string
  EXPECT_EQ(job["trainingInput"]["masterConfig"]["acceleratorConfig"]["count"], "1");
  EXPECT_EQ(job["labels"], (nlohmann::json{{"a", "b"}}));
}

TEST_F(JobsApiTest, CreateIgnoresOutputOnlyFields) {
  nlohmann::json job = ValidJob("job_1");
  job["state"] = "SUCCEEDED";
  job["endTime"] = "2020-01-01T00:00:00Z";
  job["etag"] = "AAAAAAAAAAA=";
  const ClientResponse response = client_.Post(JobsPath(), job.dump());
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(Body(response)["state"], "QUEUED");
  EXPECT_FALSE(Body(response).contains("endTime"));
  EXPECT_NE(Body(response)["etag"], "AAAAAAAAAAA=");
}

TEST_F(JobsApiTest, DuplicateIdIsAlreadyExists) {
  Create("job_1");
  const ClientResponse response = client_.Post(JobsPath(), ValidJob("job_1").dump());
  ASSERT_EQ(response.status, 409) << response.body;
  const nlohmann::json error = Error(response);
  EXPECT_EQ(error["status"], "ALREADY_EXISTS");
  EXPECT_EQ(error["message"], "Field: job.job_id Error: A job with this id already exists.");
}

TEST_F(JobsApiTest, InvalidJobIsInvalidArgumentWithEveryViolation) {
  nlohmann::json job = ValidJob("1abc");                 // must start with a letter
  job["trainingInput"].erase("region");                  // required
  job["trainingInput"]["masterType"] = "n1-standard-4";  // only with CUSTOM
  job["labels"] = {{"Bad Key", "v"}};                    // lower case, no spaces
  const ClientResponse response = client_.Post(JobsPath(), job.dump());
  ASSERT_EQ(response.status, 400) << response.body;
  const nlohmann::json error = Error(response);
  EXPECT_EQ(error["status"], "INVALID_ARGUMENT");
  ASSERT_EQ(error["details"].size(), 1u);
  EXPECT_EQ(error["details"][0]["@type"], "type.googleapis.com/google.rpc.BadRequest");
  std::set<std::string> fields;
  for (const auto& violation : error["details"][0]["fieldViolations"]) {
    fields.insert(violation["field"].get<std::string>());
    EXPECT_FALSE(violation["description"].get<std::string>().empty());
  }
  EXPECT_TRUE(fields.contains("jobId")) << error.dump();
  EXPECT_TRUE(fields.contains("trainingInput.region")) << error.dump();
  EXPECT_GE(fields.size(), 4u) << error.dump();
  EXPECT_EQ(client_.Get(JobsPath()).body, "{}");  // nothing stored
}

TEST_F(JobsApiTest, GetOfAnUnknownJobIsNotFound) {
  const ClientResponse response = client_.Get(JobPath("nope"));
  ASSERT_EQ(response.status, 404) << response.body;
  const nlohmann::json error = Error(response);
  EXPECT_EQ(error["status"], "NOT_FOUND");
  EXPECT_EQ(error["message"], "Field: name Error: The specified job was not found.");
}

TEST_F(JobsApiTest, JobsAreSeparatedByProject) {
  Create("job_1");
  EXPECT_EQ(client_.Get(JobPath("job_1", "other")).status, 404);
  EXPECT_EQ(client_.Get(JobsPath("other")).body, "{}");
}

TEST_F(JobsApiTest, ListWithNoJobsIsAnEmptyObject) {
  const ClientResponse response = client_.Get(JobsPath() + "?alt=json&pageSize=100");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "{}");
}

TEST_F(JobsApiTest, ListPagesThroughEveryJobNewestFirst) {
  constexpr int kJobs = 250;
  for (int i = 0; i < kJobs; ++i) {
    Create("job_" + std::to_string(i));
  }
  std::vector<nlohmann::json> seen;
  std::vector<std::size_t> page_sizes;
  std::string token;
  do {
    std::string target = JobsPath() + "?alt=json&pageSize=100";
    if (!token.empty()) {
      target += "&pageToken=" + token;  // tokens are URL-safe
    }
    const ClientResponse response = client_.Get(target);
    ASSERT_EQ(response.status, 200) << response.body;
    const nlohmann::json page = Body(response);
    page_sizes.push_back(page["jobs"].size());
    for (const auto& job : page["jobs"]) {
      seen.push_back(job);
    }
    token = page.value("nextPageToken", "");
    ASSERT_LE(page_sizes.size(), 3u) << "too many pages";
  } while (!token.empty());
  EXPECT_EQ(page_sizes, (std::vector<std::size_t>{100, 100, 50}));
  std::set<std::string> ids;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    ids.insert(seen[i]["jobId"].get<std::string>());
    if (i > 0) {
      const auto newer = ParseTimestamp(seen[i - 1]["createTime"].get<std::string>());
      const auto older = ParseTimestamp(seen[i]["createTime"].get<std::string>());
      ASSERT_TRUE(newer && older);
      EXPECT_GE(*newer, *older) << i;
    }
  }
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(kJobs));
  EXPECT_EQ(Body(client_.Get(JobsPath()))["jobs"].size(), 20u);  // the default page size
}

TEST_F(JobsApiTest, ListAppliesTheFilter) {
  Create("census_1", {{"team", "a"}});
  Create("census_2", {{"team", "b"}});
  Create("rnn_1", {{"team", "a"}});
  const auto ids = [&](const std::string& query) {
    const ClientResponse response = client_.Get(JobsPath() + "?filter=" + query);
    EXPECT_EQ(response.status, 200) << response.body;
    std::set<std::string> out;
    for (const auto& job : Body(response).value("jobs", nlohmann::json::array())) {
      out.insert(job["jobId"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(ids("jobId%3Acensus*"), (std::set<std::string>{"census_1", "census_2"}));
  EXPECT_EQ(ids("labels.team%3Da+AND+state%3AQUEUED"),
            (std::set<std::string>{"census_1", "rnn_1"}));
  EXPECT_EQ(ids("state%3DFAILED"), std::set<std::string>{});

  const ClientResponse bad = client_.Get(JobsPath() + "?filter=%28jobId%3Da");
  ASSERT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(Error(bad)["status"], "INVALID_ARGUMENT");
}

TEST_F(JobsApiTest, ListRefusesBadPagingParameters) {
  for (const std::string query :
       {"pageToken=garbage", "pageSize=abc", "pageSize=-1", "pageSize=99999999999"}) {
    const ClientResponse response = client_.Get(JobsPath() + "?" + query);
    EXPECT_EQ(response.status, 400) << query << ": " << response.body;
    EXPECT_EQ(Error(response)["status"], "INVALID_ARGUMENT") << query;
  }
}

TEST_F(JobsApiTest, CancelEndsAQueuedJobOnce) {
  Create("job_1");
  const ClientResponse cancelled = client_.Post(JobPath("job_1") + ":cancel?alt=json", "{}");
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_EQ(cancelled.body, "{}");

  const nlohmann::json job = Body(client_.Get(JobPath("job_1")));
  EXPECT_EQ(job["state"], "CANCELLED");
  ASSERT_TRUE(job["endTime"].is_string());  // gcloud's stream-logs stops on it
  EXPECT_TRUE(ParseTimestamp(job["endTime"].get<std::string>()).has_value());

  const ClientResponse again = client_.Post(JobPath("job_1") + ":cancel", "{}");
  ASSERT_EQ(again.status, 400) << again.body;
  EXPECT_EQ(Error(again)["status"], "FAILED_PRECONDITION");
  EXPECT_EQ(Body(client_.Get(JobPath("job_1"))), job);  // unchanged
}

TEST_F(JobsApiTest, CancelAcceptsAnEmptyBodyAndRefusesUnknownJobs) {
  Create("job_1");
  EXPECT_EQ(client_.Post(JobPath("job_1") + ":cancel", "").status, 200);
  const ClientResponse missing = client_.Post(JobPath("nope") + ":cancel", "{}");
  ASSERT_EQ(missing.status, 404) << missing.body;
  EXPECT_EQ(Error(missing)["status"], "NOT_FOUND");
}

TEST_F(JobsApiTest, PatchReplacesLabelsAndRenewsTheEtag) {
  const nlohmann::json created = Create("job_1", {{"old", "x"}});
  const ClientResponse patched = client_.Send(
      "PATCH", JobPath("job_1") + "?alt=json&updateMask=labels", R"({"labels":{"a":"1","b":"2"}})");
  ASSERT_EQ(patched.status, 200) << patched.body;
  const nlohmann::json job = Body(patched);
  EXPECT_EQ(job["labels"], (nlohmann::json{{"a", "1"}, {"b", "2"}}));
  EXPECT_NE(job["etag"], created["etag"]);
  EXPECT_TRUE(IsPaddedBase64(job["etag"].get<std::string>()));
  EXPECT_EQ(Body(client_.Get(JobPath("job_1"))), job);

  const ClientResponse cleared =
      client_.Send("PATCH", JobPath("job_1") + "?updateMask=labels", R"({"labels":{}})");
  ASSERT_EQ(cleared.status, 200) << cleared.body;
  EXPECT_FALSE(Body(cleared).contains("labels"));
}

TEST_F(JobsApiTest, PatchWithAStaleEtagIsAborted) {
  const nlohmann::json created = Create("job_1");
  const std::string target = JobPath("job_1") + "?updateMask=labels,etag";
  const std::string stale =
      nlohmann::json{{"labels", {{"a", "1"}}}, {"etag", "AAAAAAAAAAA="}}.dump();
  const ClientResponse conflict = client_.Send("PATCH", target, stale);
  ASSERT_EQ(conflict.status, 409) << conflict.body;
  EXPECT_EQ(Error(conflict)["status"], "ABORTED");
  EXPECT_EQ(Body(client_.Get(JobPath("job_1"))), created);

  const std::string fresh =
      nlohmann::json{{"labels", {{"a", "1"}}}, {"etag", created["etag"]}}.dump();
  const ClientResponse ok = client_.Send("PATCH", target, fresh);
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(Body(ok)["labels"], (nlohmann::json{{"a", "1"}}));
}

TEST_F(JobsApiTest, PatchRefusesABadMask) {
  const nlohmann::json created = Create("job_1");
  for (const std::string query : {"?updateMask=trainingInput", "?updateMask=", ""}) {
    const ClientResponse response =
        client_.Send("PATCH", JobPath("job_1") + query, R"({"labels":{"a":"1"}})");
    EXPECT_EQ(response.status, 400) << query << ": " << response.body;
    EXPECT_EQ(Error(response)["status"], "INVALID_ARGUMENT") << query;
  }
  EXPECT_EQ(Body(client_.Get(JobPath("job_1"))), created);
}

TEST_F(JobsApiTest, GetConfigNamesTheServiceAccounts) {
  const ClientResponse response = client_.Get("/v1/projects/my-proj:getConfig?alt=json");
  ASSERT_EQ(response.status, 200) << response.body;
  const nlohmann::json config = Body(response);
  EXPECT_EQ(config["serviceAccount"], "trainyard@my-proj.iam.gserviceaccount.com");
  const std::string number = config["serviceAccountProject"].get<std::string>();
  EXPECT_EQ(number.size(), 12u);
  EXPECT_EQ(number.find_first_not_of("0123456789"), std::string::npos);
  EXPECT_EQ(config["config"]["tpuServiceAccount"],
            "service-" + number + "@cloud-tpu.iam.gserviceaccount.com");
  EXPECT_EQ(Body(client_.Get("/v1/projects/my-proj:getConfig")), config);  // stable
}

TEST_F(JobsApiTest, HealthzSaysOk) {
  const ClientResponse response = client_.Get("/healthz");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "ok");
  EXPECT_EQ(response.Header("content-type"), "text/plain; charset=utf-8");
}

TEST_F(JobsApiTest, MetricsCountRequestsAndJobs) {
  Create("job_1");
  Create("job_2");
  ASSERT_EQ(client_.Post(JobPath("job_2") + ":cancel", "{}").status, 200);
  ASSERT_EQ(client_.Get(JobPath("nope")).status, 404);
  ASSERT_EQ(client_.Get("/nowhere").status, 404);
  const ClientResponse response = client_.Get("/metrics");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.Header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = response.body;
  for (const std::string line : {
           R"(trainyard_http_requests_total{route="jobs.create",code="200"} 2)",
           R"(trainyard_http_requests_total{route="jobs.cancel",code="200"} 1)",
           R"(trainyard_http_requests_total{route="jobs.get",code="404"} 1)",
           R"(trainyard_http_requests_total{route="unmatched",code="404"} 1)",
           R"(trainyard_http_request_duration_seconds_count{route="jobs.create"} 2)",
           R"(trainyard_http_request_duration_seconds_bucket{route="jobs.create",le="+Inf"} 2)",
           R"(trainyard_jobs{state="QUEUED"} 1)",
           R"(trainyard_jobs{state="CANCELLED"} 1)",
           R"(trainyard_jobs{state="RUNNING"} 0)",
       }) {
    EXPECT_NE(text.find(line + "\n"), std::string::npos) << line << "\n" << text;
  }
}

}  // namespace
}  // namespace trainyard::testing
