// What the verbs send and how they read answers, against a scripted HTTP server: the real
// `server::HttpServer` on 127.0.0.1:0 with a handler that records each request and answers as
// the test says. Covers what the real server never does (failed jobs, foreign error pages,
// broken paging, slow answers).
#include <functional>
#include <future>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/client/rest_client.h"
#include "cli/commands/commands.h"
#include "cli/scripted_api.h"
#include "server/http_server.h"
#include "server/rpc_error.h"

namespace trainyard::cli {
namespace {

using server::HttpRequest;
using server::HttpResponse;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using testing::Outcome;
using testing::ScriptedApi;

class ScriptedServerTest : public testing::ScriptedCliTest {
 protected:
  // Answers every request with `body` (JSON) and `status`.
  void AnswerWith(std::string body, int status = 200) {
    api_.Answer([body = std::move(body), status](const HttpRequest&) {
      return server::JsonResponse(body, status);
    });
  }
};

TEST_F(ScriptedServerTest, SubmitPostsTheDryRunBody) {
  AnswerWith(R"({"jobId":"job_1","state":"QUEUED"})");
  const std::vector<std::string> args = {"jobs",
                                         "submit",
                                         "training",
                                         "job_1",
                                         "--packages",
                                         "gs://bkt1/trainer.tar.gz",
                                         "--scale-tier",
                                         "basic",
                                         "--module-name",
                                         "trainer.task",
                                         "--runtime-version",
                                         "2.11"};
  const Outcome sent = Cli(args);
  ASSERT_EQ(sent.rc, 0) << sent.err;
  std::vector<std::string> dry_run = args;
  dry_run.push_back("--dry-run");
  const Outcome printed = Cli(dry_run);
  ASSERT_EQ(printed.rc, 0) << printed.err;

  const std::vector<HttpRequest> requests = api_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/v1/projects/p/jobs");
  EXPECT_EQ(requests[0].content_type, "application/json");
  EXPECT_EQ(requests[0].body + "\n", printed.out);
  EXPECT_THAT(requests[0].body, HasSubstr(R"("scaleTier":"BASIC")"));  // explicit zero value
}

TEST_F(ScriptedServerTest, ListSendsPageSizeTokenAndFilter) {
  api_.Answer([](const HttpRequest& request) {
    return request.target.find("pageToken") == std::string::npos
               ? server::JsonResponse(R"({"jobs":[{"jobId":"a","state":"RUNNING"}],)"
                                      R"("nextPageToken":"t 1/+"})")
               : server::JsonResponse(R"({"jobs":[{"jobId":"b","state":"FAILED"}]})");
  });
  const Outcome o =
      Cli({"jobs", "list", "--filter", "state:FAILED OR jobId=a", "--page-size", "50"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "JOB_ID  STATUS   CREATED\na       RUNNING\nb       FAILED\n");
  const std::vector<HttpRequest> requests = api_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target,
            "/v1/projects/p/jobs?pageSize=50&filter=state%3AFAILED%20OR%20jobId%3Da");
  EXPECT_EQ(requests[1].target,
            "/v1/projects/p/jobs?pageSize=50&pageToken=t%201%2F%2B"
            "&filter=state%3AFAILED%20OR%20jobId%3Da");
}

TEST_F(ScriptedServerTest, ListWithoutFlagsAsksForOneHundred) {
  AnswerWith("{}");
  const Outcome o = Cli({"jobs", "list"});
  EXPECT_EQ(o.rc, 0) << o.err;
  ASSERT_EQ(api_.requests().size(), 1u);
  EXPECT_EQ(api_.requests()[0].target, "/v1/projects/p/jobs?pageSize=100");
}

TEST_F(ScriptedServerTest, ListStopsWhenTheServerRepeatsAPageToken) {
  AnswerWith(R"({"jobs":[{"jobId":"a"}],"nextPageToken":"same"})");
  const Outcome o = Cli({"jobs", "list"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err,
            "ERROR: (trainyard.jobs.list) INTERNAL: The server returned the same page token "
            "twice; stopping.\n");
  EXPECT_EQ(api_.requests().size(), 2u);
}

TEST_F(ScriptedServerTest, UpdatePatchesTheWholeNewLabelMap) {
  api_.Answer([](const HttpRequest& request) {
    return request.method == "GET"
               ? server::JsonResponse(R"({"jobId":"j1","labels":{"a":"1","b":"2"}})")
               : server::JsonResponse(R"({"jobId":"j1","labels":{"b":"2","c":"3"}})");
  });
  const Outcome o = Cli({"jobs", "update", "j1", "--update-labels", "c=3", "--remove-labels", "a"});
  ASSERT_EQ(o.rc, 0) << o.err;
  const std::vector<HttpRequest> requests = api_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/v1/projects/p/jobs/j1");
  EXPECT_EQ(requests[1].method, "PATCH");
  EXPECT_EQ(requests[1].target, "/v1/projects/p/jobs/j1?updateMask=labels");
  EXPECT_EQ(nlohmann::json::parse(requests[1].body),
            nlohmann::json::parse(R"({"labels":{"b":"2","c":"3"}})"));

  api_.Answer([](const HttpRequest&) { return server::JsonResponse(R"({"jobId":"j1"})"); });
  ASSERT_EQ(Cli({"jobs", "update", "j1", "--clear-labels", "--update-labels", "x=y"}).rc, 0);
  EXPECT_EQ(api_.requests().back().body, R"({"labels":{"x":"y"}})");
}

TEST_F(ScriptedServerTest, CancelPostsAnEmptyMessageToAnEncodedName) {
  AnswerWith("{}");
  const Outcome o = Cli({"jobs", "cancel", "a b/c"});
  EXPECT_EQ(o.rc, 0) << o.err;
  ASSERT_EQ(api_.requests().size(), 1u);
  EXPECT_EQ(api_.requests()[0].method, "POST");
  EXPECT_EQ(api_.requests()[0].target, "/v1/projects/p/jobs/a%20b%2Fc:cancel");
  EXPECT_EQ(api_.requests()[0].body, "{}");
}

TEST_F(ScriptedServerTest, DescribeOfAFailedJobRepeatsItsError) {
  AnswerWith(R"({"jobId":"j1","state":"FAILED","errorMessage":"The replica master 0 exited )"
             R"(with a non-zero status of 1."})");
  const Outcome o = Cli({"jobs", "describe", "j1"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out,
            "errorMessage: The replica master 0 exited with a non-zero status of 1.\n"
            "jobId: j1\nstate: FAILED\n");
  EXPECT_EQ(o.err, "\nJob [j1] failed: The replica master 0 exited with a non-zero status of 1.\n");
}

TEST_F(ScriptedServerTest, ForeignErrorPagesKeepTheirText) {
  api_.Answer([](const HttpRequest&) {
    return HttpResponse{.status = 502, .content_type = "text/html", .body = "<h1>Bad Gateway</h1>"};
  });
  const Outcome o = Cli({"jobs", "describe", "j1"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err,
            "ERROR: (trainyard.jobs.describe) INTERNAL: HTTP 502 with a body that is not a "
            "google.rpc error: <h1>Bad Gateway</h1>\n");
}

TEST_F(ScriptedServerTest, AnAnswerThatIsNotAJobIsInternal) {
  AnswerWith(R"({"jobId":5})");
  const Outcome o = Cli({"jobs", "describe", "j1"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_THAT(o.err, StartsWith("ERROR: (trainyard.jobs.describe) INTERNAL: The server's answer "
                                "is not a valid Job: INVALID_ARGUMENT: "));
}

struct WireCase {
  std::string name;
  std::string method;
  std::string body;          // given to `RestClient::Call`
  std::string content_type;  // as the server saw it; "" for none
};

class RestWireTest : public ScriptedServerTest, public ::testing::WithParamInterface<WireCase> {};

TEST_P(RestWireTest, SendsJsonHeadersAndTheBody) {
  const WireCase& c = GetParam();
  AnswerWith(R"({"ok":true})");
  auto rest = RestClient::ForUrl(url_ + "ml");
  ASSERT_TRUE(rest.ok());
  const Result<std::string> answer = rest->Call(c.method, "v1/x?y=1", c.body);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, R"({"ok":true})");
  const std::vector<HttpRequest> requests = api_.requests();
  ASSERT_EQ(requests.size(), 1u);
  const HttpRequest& sent = requests[0];
  EXPECT_EQ(sent.method, c.method);
  EXPECT_EQ(sent.target, "/ml/v1/x?y=1");
  EXPECT_EQ(sent.content_type, c.content_type);
  EXPECT_EQ(sent.body, c.body);
  EXPECT_EQ(sent.Header("accept"), "application/json");
  EXPECT_EQ(sent.Header("user-agent"), "trainyard-cli");
  EXPECT_EQ(sent.Header("host"), url_.substr(7, url_.size() - 8));  // "127.0.0.1:PORT"
}

INSTANTIATE_TEST_SUITE_P(
    Calls, RestWireTest,
    ::testing::Values(WireCase{"GetWithoutBody", "GET", "", ""},
                      WireCase{"PostWithJson", "POST", R"({"a":1})", "application/json"},
                      WireCase{"PatchWithJson", "PATCH", "{}", "application/json"}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(ScriptedServerTest, ASlowServerMissesTheResponseDeadline) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  api_.Answer([released](const HttpRequest&) {
    released.wait();
    return server::JsonResponse("{}");
  });
  auto rest = RestClient::ForUrl(url_, {.response_timeout = std::chrono::milliseconds(100)});
  ASSERT_TRUE(rest.ok());
  const Result<std::string> answer = rest->Call("GET", "v1/projects/p/jobs/j1");
  release.set_value();  // lets the handler finish, so the server can stop
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), Code::kDeadlineExceeded);
  EXPECT_EQ(answer.status().message(),
            "The trainyard server at [" + url_ + "] did not answer within 0.1s.");
}

}  // namespace
}  // namespace trainyard::cli
