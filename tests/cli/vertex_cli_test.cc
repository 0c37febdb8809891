// `trainyard ai custom-jobs` and `ai hp-tuning-jobs` on the wire, against a scripted server
// (scripted_api.h): the aiplatform v1 requests, what each verb prints, a refusal of the server,
// and stream-logs of a Vertex job (gcloud's filter, rows without a trial column). The bodies
// themselves are compared with gcloud's by tests/e2e/vertex_parity_test.py.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "cli/follow/log_entries.h"
#include "cli/scripted_api.h"
#include "server/http_message.h"
#include "server/rpc_error.h"

namespace trainyard::cli {
namespace {

using nlohmann::json;
using server::HttpRequest;
using server::HttpResponse;
using testing::Outcome;

constexpr const char* kCustomJobs = "/v1/projects/p/locations/us-central1/customJobs";
constexpr const char* kName = "projects/p/locations/us-central1/customJobs/123";
constexpr const char* kTs = "2026-11-21T09:35:01.000001Z";

class VertexCliTest : public testing::ScriptedCliTest {
 protected:
  // Creates echo the body as job 123, PENDING; a get answers it SUCCEEDED and ended; a list
  // answers one job a page for three pages; entries:list one entry; cancel {}.
  void Serve() {
    api_.Answer([](const HttpRequest& request) -> HttpResponse {
      const std::string path = request.target.substr(0, request.target.find('?'));
      if (path == "/v2/entries:list") {
        return server::JsonResponse(fmt::format(
            R"({{"entries":[{{"insertId":"1","timestamp":"{}","severity":"INFO",
                "resource":{{"labels":{{"task_name":"workerpool1-0"}}}},
                "labels":{{"ml.googleapis.com/trial_id":"2"}},"textPayload":"a\nb"}}]}})",
            kTs));
      }
      if (path.ends_with(":cancel")) {
        return server::JsonResponse("{}");
      }
      if (request.method == "POST") {
        json job = json::parse(request.body);
        job["name"] = path.substr(4) + "/123";  // without "/v1/"
        job["state"] = "JOB_STATE_PENDING";
        return server::JsonResponse(job.dump());
      }
      if (path.ends_with("Jobs")) {  // a list: page N (pageToken=N) holds job jN
        const std::size_t token = request.target.find("pageToken=");
        const int page = token == std::string::npos ? 0 : request.target[token + 10] - '0';
        json answer = {{"customJobs", {{{"name", fmt::format("j{}", page)}}}}};
        if (page < 2) {
          answer["nextPageToken"] = std::to_string(page + 1);
        }
        return server::JsonResponse(answer.dump());
      }
      return server::JsonResponse(
          fmt::format(R"({{"name":"{}","state":"JOB_STATE_SUCCEEDED",)"
                      R"("createTime":"2026-11-21T09:35:00Z","endTime":"2026-11-21T09:36:00Z"}})",
                      path.substr(4)));
    });
  }

  std::vector<std::string> Targets() const {
    std::vector<std::string> targets;
    for (const HttpRequest& request : api_.requests()) {
      targets.push_back(request.method + " " + request.target);
    }
    return targets;
  }
};

TEST_F(VertexCliTest, CreatePostsTheJobAndSaysSoAsGcloud) {
  Serve();
  const Outcome o = Cli({"ai", "custom-jobs", "create", "--display-name", "d",
                         "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=i"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, fmt::format("CustomJob [{0}] is submitted successfully.\n\nYour job is still "
                               "active. You may view the status of your job with the command\n\n"
                               "  $ trainyard ai custom-jobs describe {0}\n\nor continue "
                               "streaming the logs with the command\n\n  $ trainyard ai "
                               "custom-jobs stream-logs {0}\n",
                               kName));
  ASSERT_EQ(api_.requests().size(), 1u);
  EXPECT_EQ(api_.requests()[0].target, kCustomJobs);
  EXPECT_EQ(json::parse(api_.requests()[0].body)["jobSpec"]["workerPoolSpecs"][0]["replicaCount"],
            "1");
}

TEST_F(VertexCliTest, ARefusalOfTheServerIsOneErrorLine) {
  api_.Answer([](const HttpRequest&) {
    return server::ErrorResponse(400, Status::InvalidArgument("workerPoolSpecs[0]: no such image"));
  });
  const Outcome o =
      Cli({"ai", "hp-tuning-jobs", "create", "--display-name", "h", "--config", "/dev/null"});
  EXPECT_EQ(o.rc, 1);
  EXPECT_EQ(o.err,
            "ERROR: (trainyard.ai.hp-tuning-jobs.create) INVALID_ARGUMENT: workerPoolSpecs[0]: no "
            "such image\n");
  ASSERT_EQ(api_.requests().size(), 1u);
  EXPECT_EQ(api_.requests()[0].target,
            "/v1/projects/p/locations/us-central1/hyperparameterTuningJobs");
  EXPECT_EQ(json::parse(api_.requests()[0].body),
            json::parse(R"({"displayName":"h","maxTrialCount":1,"parallelTrialCount":1})"));
}

TEST_F(VertexCliTest, DescribeAFullNameGoesToItsProjectAndRegion) {
  Serve();
  const Outcome o = Cli({"ai", "hp-tuning-jobs", "describe",
                         "projects/q/locations/europe-west4/hyperparameterTuningJobs/9"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(Targets(), std::vector<std::string>{
                           "GET /v1/projects/q/locations/europe-west4/hyperparameterTuningJobs/9"});
  EXPECT_EQ(o.out,
            "createTime: '2026-11-21T09:35:00Z'\nendTime: '2026-11-21T09:36:00Z'\nname: "
            "projects/q/locations/europe-west4/hyperparameterTuningJobs/9\nstate: "
            "JOB_STATE_SUCCEEDED\n");
}

TEST_F(VertexCliTest, ListFollowsThePagesUpToTheLimit) {
  Serve();
  const Outcome o = Cli({"ai", "custom-jobs", "list", "--limit", "2"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "---\nname: j0\n---\nname: j1\n");
  EXPECT_EQ(Targets(), (std::vector<std::string>{
                           fmt::format("GET {}?pageSize=100", kCustomJobs),
                           fmt::format("GET {}?pageSize=100&pageToken=1", kCustomJobs)}));
}

TEST_F(VertexCliTest, CancelPostsToTheJobAndSaysHowToFollowIt) {
  Serve();
  const Outcome o = Cli({"ai", "hp-tuning-jobs", "cancel", "7"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(Targets(),
            std::vector<std::string>{
                "POST /v1/projects/p/locations/us-central1/hyperparameterTuningJobs/7:cancel"});
  EXPECT_EQ(o.err,
            "Request to cancel hyperparameter tuning job [7] has been sent.\n\nYou may view the "
            "status of your job with the command\n\n  $ trainyard ai hp-tuning-jobs describe 7 "
            "--region=us-central1\n\n");
}

TEST_F(VertexCliTest, StreamLogsOfAnEndedJobUsesVertexsFilterAndRows) {
  Serve();
  const Outcome o =
      Cli({"ai", "custom-jobs", "stream-logs", "123", "--task-name", "workerpool1-0"});
  ASSERT_EQ(o.rc, 0) << o.err;
  const std::string at = LocalLogDate(*ParseTimestamp(kTs));
  EXPECT_EQ(o.out, "INFO\t" + at + "\tworkerpool1-0\ta\nINFO\t" + at + "\tworkerpool1-0\tb\n");
  const std::vector<HttpRequest> requests = api_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].target, std::string(kCustomJobs) + "/123");
  EXPECT_EQ(json::parse(requests[1].body)["filter"],
            R"(resource.type="ml_job" AND resource.labels.job_id="123" AND )"
            R"(resource.labels.task_name="workerpool1-0" AND )"
            R"(timestamp>="1970-01-01T01:00:00.000000000Z")");
}

}  // namespace
}  // namespace trainyard::cli
