// `jobs stream-logs` and `submit training --stream-logs` on the wire, against a scripted server
// (scripted_api.h): the requests gcloud's way (docs/reference/ai-platform-training.md §10.1), the
// rows, the exit codes and the messages. Every scripted job here has already ended or the follow
// stops on an error, so no test waits between polls; the rounds themselves are
// log_follower_test.cc's.
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "cli/client/logging_client.h"
#include "cli/client/rest_client.h"
#include "cli/commands/commands.h"
#include "cli/follow/log_entries.h"
#include "cli/output/job_output.h"
#include "cli/scripted_api.h"
#include "server/http_server.h"
#include "server/rpc_error.h"

namespace trainyard::cli {
namespace {

using server::HttpRequest;
using server::HttpResponse;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Outcome;
using ::testing::StartsWith;

constexpr const char* kFilter =
    R"((resource.type="ml_job" OR resource.type="cloudml_job") AND resource.labels.job_id="j1")"
    R"( AND timestamp>="1970-01-01T01:00:00.000000000Z")";
constexpr const char* kTs1 = "2026-11-21T09:35:01.000001Z";
constexpr const char* kTs2 = "2026-11-21T09:35:02.500000Z";

std::string EndedJob(const std::string& state) {
  return fmt::format(R"({{"jobId":"j1","state":"{}","createTime":"2026-11-21T09:35:00Z",)"
                     R"("startTime":"2026-11-21T09:35:00Z","endTime":"2026-11-21T09:36:00Z"}})",
                     state);
}

// gcloud's row prefix for `timestamp`, in this machine's zone.
std::string At(const char* timestamp) {
  return LocalLogDate(*ParseTimestamp(timestamp));
}

class StreamLogsCliTest : public testing::ScriptedCliTest {
 protected:
  // The job answers `job`; entries:list answers two pages (the second asked with token "p2");
  // create answers the job QUEUED.
  void Serve(std::string job) {
    api_.Answer([job = std::move(job)](const HttpRequest& request) {
      if (request.target == "/v2/entries:list") {
        const auto body = nlohmann::json::parse(request.body);
        if (!body.contains("pageToken")) {
          return server::JsonResponse(fmt::format(
              R"({{"entries":[
                {{"insertId":"1","timestamp":"{0}","severity":"INFO",
                  "resource":{{"labels":{{"task_name":"master-replica-0"}}}},
                  "textPayload":"step 1\nstep 2"}},
                {{"insertId":"2","timestamp":"{0}","severity":"ERROR",
                  "resource":{{"labels":{{"task_name":"worker-replica-1"}}}},
                  "textPayload":"warning: x"}}],"nextPageToken":"p2"}})",
              kTs1));
        }
        return server::JsonResponse(fmt::format(
            R"({{"entries":[{{"insertId":"3","timestamp":"{}","severity":"INFO",
                "resource":{{"labels":{{"task_name":"service"}}}},
                "jsonPayload":{{"message":"Job completed successfully."}}}}]}})",
            kTs2));
      }
      if (request.method == "POST" && request.target == "/v1/projects/p/jobs") {
        return server::JsonResponse(R"({"jobId":"j1","state":"QUEUED"})");
      }
      return server::JsonResponse(job);
    });
  }

  // The rows of the two pages Serve answers.
  static std::string Rows() {
    return "INFO\t" + At(kTs1) + "\tmaster-replica-0\t\tstep 1\n" +  //
           "INFO\t" + At(kTs1) + "\tmaster-replica-0\t\tstep 2\n" +  //
           "ERROR\t" + At(kTs1) + "\tworker-replica-1\t\twarning: x\n" + "INFO\t" + At(kTs2) +
           "\tservice\t\tJob completed successfully.\n";
  }

  std::vector<HttpRequest> Requests(const std::string& target) const {
    std::vector<HttpRequest> matching;
    for (const HttpRequest& request : api_.requests()) {
      if (request.target == target) {
        matching.push_back(request);
      }
    }
    return matching;
  }
};

TEST_F(StreamLogsCliTest, PrintsEveryPageOfAnEndedJobAsGcloudAsksAndPrints) {
  Serve(EndedJob("SUCCEEDED"));
  const Outcome o = Cli({"jobs", "stream-logs", "j1"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, Rows());
  EXPECT_EQ(o.err, "");

  const std::vector<HttpRequest> requests = api_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/v1/projects/p/jobs/j1");
  const std::vector<HttpRequest> lists = Requests("/v2/entries:list");
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[0].method, "POST");
  EXPECT_EQ(lists[0].content_type, "application/json");
  // gcloud's body (docs/reference/ai-platform-training.md §10.1); the job has ended, so there is no
  // upper bound.
  EXPECT_EQ(nlohmann::json::parse(lists[0].body),
            (nlohmann::json{{"filter", kFilter},
                            {"orderBy", "timestamp asc"},
                            {"pageSize", 1000},
                            {"resourceNames", {"projects/p"}}}));
  EXPECT_EQ(nlohmann::json::parse(lists[1].body),
            (nlohmann::json{{"filter", kFilter},
                            {"orderBy", "timestamp asc"},
                            {"pageSize", 1000},
                            {"pageToken", "p2"},
                            {"resourceNames", {"projects/p"}}}));
}

TEST_F(StreamLogsCliTest, ATaskNameNarrowsTheFilterAndMultilineKeepsMessagesWhole) {
  Serve(EndedJob("SUCCEEDED"));
  const Outcome o = Cli({"jobs", "stream-logs", "j1", "--task-name", "worker-replica-1",
                         "--allow-multiline-logs", "--polling-interval", "5"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_THAT(o.out, StartsWith("INFO\t" + At(kTs1) + "\tmaster-replica-0\t\tstep 1\nstep 2\n"));
  const std::vector<HttpRequest> lists = Requests("/v2/entries:list");
  ASSERT_FALSE(lists.empty());
  EXPECT_EQ(nlohmann::json::parse(lists[0].body)["filter"],
            R"((resource.type="ml_job" OR resource.type="cloudml_job") AND )"
            R"(resource.labels.job_id="j1" AND (resource.labels.task_name="worker-replica-1" OR )"
            R"(labels.task_name="worker-replica-1") AND )"
            R"(timestamp>="1970-01-01T01:00:00.000000000Z")");
}

TEST_F(StreamLogsCliTest, AnUnknownJobIsNotFoundBeforeAnyLogRequest) {
  api_.Answer([](const HttpRequest&) {
    return server::ErrorResponse(
        404, Status::NotFound("Field: name Error: The specified job was not found."));
  });
  const Outcome o = Cli({"jobs", "stream-logs", "nope"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err,
            "ERROR: (trainyard.jobs.stream-logs) NOT_FOUND: Field: name Error: The specified job "
            "was not found.\n");
  ASSERT_EQ(api_.requests().size(), 1u);
  EXPECT_EQ(api_.requests()[0].target, "/v1/projects/p/jobs/nope");
}

TEST_F(StreamLogsCliTest, AFailedLogRequestIsAnError) {
  api_.Answer([](const HttpRequest& request) {
    if (request.target == "/v2/entries:list") {
      return server::ErrorResponse(400, Status::InvalidArgument("bad filter"));
    }
    return server::JsonResponse(EndedJob("SUCCEEDED"));
  });
  const Outcome o = Cli({"jobs", "stream-logs", "j1"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err, "ERROR: (trainyard.jobs.stream-logs) INVALID_ARGUMENT: bad filter\n");
}

std::vector<std::string> SubmitArgs() {
  return {"jobs",
          "submit",
          "training",
          "j1",
          "--packages",
          "gs://bkt1/t.tar.gz",
          "--module-name",
          "trainer.task",
          "--region",
          "us-central1",
          "--runtime-version",
          "2.11",
          "--stream-logs"};
}

TEST_F(StreamLogsCliTest, SubmitStreamsRowsToStderrThenPrintsTheJob) {
  Serve(EndedJob("SUCCEEDED"));
  const Outcome o = Cli(SubmitArgs());
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.err, "Job [j1] submitted successfully.\n" + Rows());
  EXPECT_EQ(o.out, "endTime: '" + LocalDate(*ParseTimestamp("2026-11-21T09:36:00Z")) +
                       "'\njobId: j1\nstartTime: '" +
                       LocalDate(*ParseTimestamp("2026-11-21T09:35:00Z")) +
                       "'\nstate: SUCCEEDED\n");
  EXPECT_EQ(Requests("/v1/projects/p/jobs").size(), 1u);  // one create
}

TEST_F(StreamLogsCliTest, SubmitExitsOneWhenTheJobDidNotSucceed) {
  for (const std::string state : {"FAILED", "CANCELLED"}) {
    Serve(EndedJob(state));
    const Outcome o = Cli(SubmitArgs());
    EXPECT_EQ(o.rc, 1) << state;
    EXPECT_THAT(o.out, HasSubstr("\njobId: j1\nstartTime: "));
    EXPECT_THAT(o.out, ::testing::EndsWith("\nstate: " + state + "\n"));
    EXPECT_EQ(o.err, "Job [j1] submitted successfully.\n" + Rows());  // no error message
  }
}

TEST_F(StreamLogsCliTest, SubmitSaysWhenPollingFailsAndStillReadsTheJob) {
  api_.Answer([](const HttpRequest& request) {
    if (request.target == "/v2/entries:list") {
      return server::ErrorResponse(503, Status::Unavailable("logs are resting"));
    }
    if (request.method == "POST") {
      return server::JsonResponse(R"({"jobId":"j1","state":"QUEUED"})");
    }
    return server::JsonResponse(R"({"jobId":"j1","state":"RUNNING"})");
  });
  const Outcome o = Cli(SubmitArgs());
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err,
            "Job [j1] submitted successfully.\n"
            "Polling logs failed:\nUNAVAILABLE: logs are resting\n\n"
            "Your job is still active. You may view the status of your job with the command\n\n"
            "  $ trainyard jobs describe j1\n\n"
            "or continue streaming the logs with the command\n\n"
            "  $ trainyard jobs stream-logs j1\n");
  EXPECT_EQ(o.out, "jobId: j1\nstate: RUNNING\n");
  // The follow's read of the job, then the final one.
  EXPECT_EQ(Requests("/v1/projects/p/jobs/j1").size(), 2u);
}

TEST_F(StreamLogsCliTest, ReplicasAreListedFromTrainyardsEndpoint) {
  api_.Answer([](const HttpRequest&) {
    return server::JsonResponse(
        R"({"replicas":[{"taskName":"master-replica-0","state":"RUNNING","pid":12,)"
        R"("restarts":0},{"taskName":"worker-replica-0","state":"EXITED",)"
        R"("exitStatus":"exited with status 0"}]})");
  });
  auto rest = RestClient::ForUrl(url_);
  ASSERT_TRUE(rest.ok());
  const LoggingClient logging(*rest);
  auto replicas = logging.ListReplicas("p", "a b");
  ASSERT_TRUE(replicas.ok()) << replicas.status().ToString();
  EXPECT_THAT(*replicas, ElementsAre(ReplicaStatus{"master-replica-0", "RUNNING"},
                                     ReplicaStatus{"worker-replica-0", "EXITED"}));
  ASSERT_EQ(api_.requests().size(), 1u);
  EXPECT_EQ(api_.requests()[0].method, "GET");
  EXPECT_EQ(api_.requests()[0].target, "/trainyard/v1/projects/p/jobs/a%20b/replicas");

  api_.Answer([](const HttpRequest&) { return server::JsonResponse("{}"); });
  auto none = logging.ListReplicas("p", "j");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());

  api_.Answer([](const HttpRequest&) { return server::JsonResponse(R"({"replicas":[{}]})"); });
  auto bad = logging.ListReplicas("p", "j");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInternal);
}

TEST_F(StreamLogsCliTest, AnEntriesAnswerThatDoesNotDecodeIsInternal) {
  api_.Answer(
      [](const HttpRequest&) { return server::JsonResponse(R"({"entries":[{"insertId":"1"}]})"); });
  auto rest = RestClient::ForUrl(url_);
  ASSERT_TRUE(rest.ok());
  auto page = LoggingClient(*rest).ListEntries("p", "f", "");
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), Code::kInternal);
  EXPECT_EQ(page.status().message(),
            "The server's answer is not a valid ListLogEntriesResponse: entries[0] has no "
            "timestamp");
}

}  // namespace
}  // namespace trainyard::cli
