// `trainyard jobs suspend JOB` and `jobs resume JOB` over trainyard v1's own verbs
// (api/trainyard/suspend.h; gcloud has none), and what `jobs describe` adds for a
// suspended job and for a queued one (its place in the queue and why it waits, from the cluster
// view: api/trainyard/cluster.h).
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/client/rest_client.h"
#include "cli/commands/commands.h"
#include "cli/output/error_output.h"

namespace trainyard::cli {
namespace {

struct Suspension {
  std::string state;
  bool suspended = false;
};

std::string SuspensionPath(std::string_view project, std::string_view job_id) {
  return fmt::format("trainyard/v1/projects/{}/jobs/{}", PercentEncode(project),
                     PercentEncode(job_id));
}

Result<Suspension> DecodeSuspension(const Result<std::string>& body) {
  if (!body.ok()) {
    return body.status();
  }
  const nlohmann::json answer = nlohmann::json::parse(*body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object() || !answer.value("state", nlohmann::json()).is_string() ||
      !answer.value("suspended", nlohmann::json()).is_boolean()) {
    return Status::Internal("The server's answer is not a job's suspension: " + *body);
  }
  return Suspension{.state = answer["state"].get<std::string>(),
                    .suspended = answer["suspended"].get<bool>()};
}

}  // namespace

int RunSuspend(const ApiTarget& target, const std::string& job_id, bool suspend,
               std::ostream& err) {
  const std::string command = suspend ? "trainyard.jobs.suspend" : "trainyard.jobs.resume";
  const std::optional<RestClient> rest = Connect(target, command, err);
  if (!rest) {
    return 1;
  }
  const Result<Suspension> answer = DecodeSuspension(rest->Call(
      "POST", SuspensionPath(target.project, job_id) + (suspend ? ":suspend" : ":resume"), "{}"));
  if (!answer.ok()) {
    PrintApiError(err, command, answer.status());
    return 1;
  }
  if (suspend) {
    err << fmt::format(
        "Suspended job [{}]: {}it waits in the queue until `trainyard jobs resume {}`.\n", job_id,
        answer->state == "RUNNING" || answer->state == "PREPARING"
            ? "its replicas are being stopped, then "
            : "",
        job_id);
  } else {
    err << fmt::format("Resumed job [{}]: it starts when there is room for it.\n", job_id);
  }
  return 0;
}

void NoteSuspension(const RestClient& rest, const std::string& project, const std::string& job_id,
                    std::ostream& err) {
  const Result<Suspension> answer =
      DecodeSuspension(rest.Call("GET", SuspensionPath(project, job_id) + "/suspension", ""));
  if (!answer.ok() || !answer->suspended) {
    return;  // not suspended, or a server without the verb: nothing to add
  }
  err << fmt::format(
      "\nJob [{}] is suspended: {}it waits in the queue until `trainyard jobs "
      "resume {}`.\n",
      job_id, answer->state == "QUEUED" ? "" : "its replicas are being stopped, then ", job_id);
}

void NoteQueued(const RestClient& rest, const std::string& project, const std::string& job_id,
                std::ostream& err) {
  const Result<std::string> body =
      rest.Call("GET", fmt::format("trainyard/v1/projects/{}/cluster", PercentEncode(project)), "");
  if (!body.ok()) {
    return;  // a server without an executor or the route: nothing to add
  }
  const nlohmann::json cluster = nlohmann::json::parse(*body, nullptr, /*allow_exceptions=*/false);
  if (!cluster.is_object() || !cluster.value("queue", nlohmann::json()).is_array()) {
    return;
  }
  for (const nlohmann::json& queued : cluster["queue"]) {
    if (queued.is_object() && queued.value("jobId", nlohmann::json()) == job_id &&
        queued.value("position", nlohmann::json()).is_number_integer() &&
        queued.value("reason", nlohmann::json()).is_string()) {
      err << fmt::format("\nqueuePosition: {}\nwaitReason: {}\n", queued["position"].get<int>(),
                         queued["reason"].get<std::string>());
      return;
    }
  }
}

}  // namespace trainyard::cli
