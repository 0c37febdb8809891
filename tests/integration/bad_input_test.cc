// Hostile and malformed requests: each is a 4xx google.rpc error, stores nothing, and leaves the
// server serving.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "integration/live_server.h"

namespace trainyard::testing {
namespace {

struct BadCase {
  std::string name;
  std::string method;
  std::string target;
  std::string body;
  std::string content_type;  // "" sends application/json when there is a body
  int status;
  std::string rpc_status;
};

std::string ValidJobText(std::string_view id) {
  return ValidJob(id).dump();
}

std::string WithField(std::string_view path, nlohmann::json value) {
  nlohmann::json job = ValidJob("job_new");
  job[nlohmann::json::json_pointer(std::string(path))] = std::move(value);
  return job.dump();
}

class BadInputTest : public ::testing::TestWithParam<BadCase> {
 protected:
  void SetUp() override {
    // One stored job, so "nothing changed" is more than an empty list staying empty.
    ASSERT_EQ(client_.Post(JobsPath(), ValidJobText("job_0")).status, 200);
    before_ = client_.Get(JobsPath()).body;
  }

  LiveServer server_;
  HttpClient client_{server_.port()};
  std::string before_;
};

TEST_P(BadInputTest, IsA4xxRpcErrorThatChangesNothing) {
  const BadCase& tc = GetParam();
  Headers headers;
  if (!tc.content_type.empty()) {
    headers.emplace_back("Content-Type", tc.content_type);
  }
  const ClientResponse response = client_.Send(tc.method, tc.target, tc.body, headers);
  EXPECT_EQ(response.status, tc.status) << response.body.substr(0, 2000);
  EXPECT_EQ(response.Header("content-type"), "application/json; charset=UTF-8");
  const nlohmann::json error = Body(response)["error"];
  EXPECT_EQ(error["code"], tc.status);
  EXPECT_EQ(error["status"], tc.rpc_status) << response.body.substr(0, 2000);
  EXPECT_FALSE(error.value("message", "").empty());

  HttpClient fresh(server_.port());  // the old connection may have been closed (413, 431)
  EXPECT_EQ(fresh.Get(JobsPath()).body, before_);
  EXPECT_EQ(fresh.Get("/healthz").body, "ok");
  EXPECT_EQ(fresh.Post(JobsPath(), ValidJobText("job_after")).status, 200);
}

const std::string kTenKb(10'000, 'a');

INSTANTIATE_TEST_SUITE_P(
    Table, BadInputTest,
    ::testing::Values(
        // Bodies.
        BadCase{"MalformedJson", "POST", JobsPath(), R"({"jobId": "x",,})", "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"TruncatedJson", "POST", JobsPath(), ValidJobText("job_new").substr(0, 40), "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"NotAnObject", "POST", JobsPath(), "[1,2,3]", "", 400, "INVALID_ARGUMENT"},
        BadCase{"EmptyBody", "POST", JobsPath(), "", "", 400, "INVALID_ARGUMENT"},
        BadCase{"UnknownField", "POST", JobsPath(), WithField("/parameter_server_type", "x"), "",
                400, "INVALID_ARGUMENT"},
        BadCase{"UnknownNestedField", "POST", JobsPath(), WithField("/trainingInput/bogus", 1), "",
                400, "INVALID_ARGUMENT"},
        BadCase{"WrongTypeJobId", "POST", JobsPath(), WithField("/jobId", 5), "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"WrongTypeCount", "POST", JobsPath(), WithField("/trainingInput/workerCount", "x"),
                "", 400, "INVALID_ARGUMENT"},
        BadCase{"UnknownEnum", "POST", JobsPath(), WithField("/trainingInput/scaleTier", "HUGE"),
                "", 400, "INVALID_ARGUMENT"},
        BadCase{"TextContentType", "POST", JobsPath(), ValidJobText("job_new"), "text/plain", 400,
                "INVALID_ARGUMENT"},
        BadCase{"FormContentType", "POST", JobsPath(), ValidJobText("job_new"),
                "application/x-www-form-urlencoded", 400, "INVALID_ARGUMENT"},
        BadCase{"InvalidJob", "POST", JobsPath(), WithField("/jobId", "1-bad id"), "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"DuplicateJob", "POST", JobsPath(), ValidJobText("job_0"), "", 409,
                "ALREADY_EXISTS"},
        BadCase{"TenKbJobIdInBody", "POST", JobsPath(), WithField("/jobId", kTenKb), "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"BodyOverTheLimit", "POST", JobsPath(),
                std::string((std::size_t{10} << 20) + 1, ' '), "", 413, "INVALID_ARGUMENT"},
        BadCase{"CancelWithFields", "POST", JobPath("job_0") + ":cancel", R"({"force":true})", "",
                400, "INVALID_ARGUMENT"},
        BadCase{"CancelWithJunk", "POST", JobPath("job_0") + ":cancel", "{", "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"PatchOtherField", "PATCH", JobPath("job_0") + "?updateMask=trainingInput",
                WithField("/labels", {{"a", "b"}}), "", 400, "INVALID_ARGUMENT"},
        BadCase{"PatchBadLabels", "PATCH", JobPath("job_0") + "?updateMask=labels",
                R"({"labels":{"Not Valid":"x"}})", "", 400, "INVALID_ARGUMENT"},
        // Names in the path.
        BadCase{"ProjectDotDotSlash", "GET", "/v1/projects/..%2F/jobs", "", "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"CreateInDotDotSlash", "POST", "/v1/projects/..%2F..%2Fetc/jobs",
                ValidJobText("job_new"), "", 400, "INVALID_ARGUMENT"},
        BadCase{"ProjectDotDot", "GET", "/v1/projects/../jobs", "", "", 400, "INVALID_ARGUMENT"},
        BadCase{"JobIdDotDotSlash", "GET", JobPath("..%2Fjob_0"), "", "", 400, "INVALID_ARGUMENT"},
        BadCase{"JobIdNul", "GET", JobPath("job_0%00"), "", "", 400, "INVALID_ARGUMENT"},
        BadCase{"JobIdBadEscape", "GET", JobPath("job%zz"), "", "", 400, "INVALID_ARGUMENT"},
        BadCase{"JobIdWithSpace", "GET", JobPath("a%20b"), "", "", 400, "INVALID_ARGUMENT"},
        BadCase{"TenKbJobIdInPath", "GET", JobPath(kTenKb), "", "", 400, "INVALID_ARGUMENT"},
        BadCase{"CancelTenKbJobId", "POST", JobPath(kTenKb) + ":cancel", "{}", "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"ProjectWithControlChar", "GET", "/v1/projects/a%01b/jobs", "", "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"HeadersOverTheLimit", "GET", JobPath(std::string(20'000, 'a')), "", "", 431,
                "INVALID_ARGUMENT"},
        // Methods, paths and parameters.
        BadCase{"UnknownPath", "GET", "/v1/projects/proj/models", "", "", 404, "NOT_FOUND"},
        BadCase{"UnknownVersion", "GET", "/v2/projects/proj/jobs", "", "", 404, "NOT_FOUND"},
        BadCase{"Root", "GET", "/", "", "", 404, "NOT_FOUND"},
        BadCase{"DeleteJob", "DELETE", JobPath("job_0"), "", "", 405, "UNIMPLEMENTED"},
        BadCase{"PutJobs", "PUT", JobsPath(), ValidJobText("job_new"), "", 405, "UNIMPLEMENTED"},
        BadCase{"GetCancel", "GET", JobPath("job_0") + ":cancel", "", "", 405, "UNIMPLEMENTED"},
        BadCase{"PostUnknownVerb", "POST", JobPath("job_0") + ":delete", "{}", "", 405,
                "UNIMPLEMENTED"},
        BadCase{"UnknownQueryParam", "GET", JobsPath() + "?orderBy=jobId", "", "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"BadQueryEscape", "GET", JobsPath() + "?pageToken=%G0", "", "", 400,
                "INVALID_ARGUMENT"},
        BadCase{"BadPageSize", "GET", JobsPath() + "?pageSize=ten", "", "", 400,
                "INVALID_ARGUMENT"}),
    [](const auto& tc) { return tc.param.name; });

// Bytes that are not a well-formed HTTP request at all.
TEST(BadInputRaw, MalformedRequestsAreAnsweredAndTheServerKeepsServing) {
  LiveServer server;
  HttpClient client(server.port());
  for (const std::string& raw :
       std::vector<std::string>{"NOT HTTP AT ALL\r\n\r\n", "GET /healthz HTTQ/1.1\r\n\r\n",
                                "POST /v1/projects/p/jobs HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                                std::string("GET /\0 HTTP/1.1\r\n\r\n", 19)}) {
    const ClientResponse response = client.SendRaw(raw);
    EXPECT_EQ(response.status, 400) << raw;
    EXPECT_EQ(Body(response)["error"]["status"], "INVALID_ARGUMENT") << raw;
  }
  EXPECT_EQ(client.Get(JobsPath()).body, "{}");
  EXPECT_EQ(client.Get("/healthz").body, "ok");
}

}  // namespace
}  // namespace trainyard::testing
