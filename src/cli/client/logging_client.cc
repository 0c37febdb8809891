#include "cli/client/logging_client.h"

#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/client/json_fields.h"

namespace trainyard::cli {
namespace {

using nlohmann::json;

Status BadAnswer(std::string_view what, std::string_view why) {
  return Status::Internal(fmt::format("The server's answer is not a valid {}: {}", what, why));
}

}  // namespace

Result<LogEntriesPage> LoggingClient::ListEntries(std::string_view project, std::string_view filter,
                                                  std::string_view page_token) const {
  json request = {{"filter", filter},
                  {"orderBy", "timestamp asc"},
                  {"pageSize", kPageSize},
                  {"resourceNames", json::array({fmt::format("projects/{}", project)})}};
  if (!page_token.empty()) {
    request["pageToken"] = page_token;
  }
  auto body = rest_.Call("POST", "v2/entries:list",
                         request.dump(-1, ' ', false, json::error_handler_t::replace));
  if (!body.ok()) {
    return body.status();
  }
  auto page = DecodeLogEntriesPage(*body);
  if (!page.ok()) {
    return BadAnswer("ListLogEntriesResponse", page.status().message());
  }
  return page;
}

Result<std::vector<ReplicaStatus>> LoggingClient::ListReplicas(std::string_view project,
                                                               std::string_view job_id) const {
  auto body = rest_.Call("GET", fmt::format("trainyard/v1/projects/{}/jobs/{}/replicas",
                                            PercentEncode(project), PercentEncode(job_id)));
  if (!body.ok()) {
    return body.status();
  }
  const json answer = json::parse(*body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object()) {
    return BadAnswer("replica list", "not a JSON object");
  }
  std::vector<ReplicaStatus> replicas;
  const auto listed = answer.find("replicas");
  if (listed == answer.end()) {
    return replicas;
  }
  if (!listed->is_array()) {
    return BadAnswer("replica list", "replicas is not a list");
  }
  for (const json& item : *listed) {
    std::optional<std::string> task = StringAt(item, "taskName");
    std::optional<std::string> state = StringAt(item, "state");
    if (!task || !state) {
      return BadAnswer("replica list", "a replica has no taskName or state");
    }
    replicas.push_back({.task_name = *std::move(task), .state = *std::move(state)});
  }
  return replicas;
}

}  // namespace trainyard::cli
