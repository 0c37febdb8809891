#include "cli/client/vertex_client.h"

#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace trainyard::cli {
namespace {

using nlohmann::json;

Status BadAnswer(std::string_view what, std::string_view why) {
  return Status::Internal(fmt::format("The server's answer is not a valid {}: {}", what, why));
}

Result<json> DecodeObject(const Result<std::string>& body, std::string_view what) {
  if (!body.ok()) {
    return body.status();
  }
  json object = json::parse(*body, nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) {
    return BadAnswer(what, "not a JSON object");
  }
  return object;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) {
      return parts;
    }
    text.remove_prefix(at + 1);
  }
}

}  // namespace

std::string StringField(const json& job, std::string_view key) {
  if (!job.is_object()) {
    return "";
  }
  const auto value = job.find(std::string(key));
  return value != job.end() && value->is_string() ? value->get<std::string>() : "";
}

std::string_view VertexCollection(VertexKind kind) {
  return kind == VertexKind::kCustomJob ? "customJobs" : "hyperparameterTuningJobs";
}

std::string VertexJobName::RelativeName(VertexKind kind) const {
  return fmt::format("projects/{}/locations/{}/{}/{}", project, location, VertexCollection(kind),
                     id);
}

Result<VertexJobName> ParseVertexJobName(std::string_view text, VertexKind kind,
                                         const std::string& project,
                                         const std::optional<std::string>& region) {
  const std::string_view resource = kind == VertexKind::kCustomJob ? "custom_job" : "hptuning_job";
  const std::vector<std::string_view> parts = Split(text, '/');
  if (parts.size() == 6 && parts[0] == "projects" && parts[2] == "locations" &&
      parts[4] == VertexCollection(kind) && !parts[1].empty() && !parts[3].empty() &&
      !parts[5].empty()) {
    return VertexJobName{std::string(parts[1]), std::string(parts[3]), std::string(parts[5])};
  }
  if (parts.size() != 1 || text.empty()) {
    return Status::InvalidArgument(fmt::format(
        "Invalid value for [{}]: [{}] is neither an id nor projects/PROJECT/locations/REGION/{}/ID",
        resource, text, VertexCollection(kind)));
  }
  if (!region || region->empty()) {
    return Status::InvalidArgument(fmt::format(
        "Error parsing [{}].\nThe [{}] resource is not properly specified.\nFailed to find "
        "attribute [region]. The attribute can be set in the following ways: \n- provide the "
        "argument `--region` on the command line\n- set the environment variable "
        "`TRAINYARD_REGION`",
        resource, kind == VertexKind::kCustomJob ? "custom job" : "hyperparameter tuning job"));
  }
  return VertexJobName{project, *region, std::string(text)};
}

std::string VertexClient::CollectionPath(std::string_view project,
                                         std::string_view location) const {
  return fmt::format("v1/projects/{}/locations/{}/{}", PercentEncode(project),
                     PercentEncode(location), VertexCollection(kind_));
}

std::string VertexClient::JobPath(const VertexJobName& name) const {
  return fmt::format("{}/{}", CollectionPath(name.project, name.location), PercentEncode(name.id));
}

Result<json> VertexClient::Create(std::string_view project, std::string_view location,
                                  std::string_view body) const {
  return DecodeObject(rest_.Call("POST", CollectionPath(project, location), body),
                      VertexCollection(kind_));
}

Result<json> VertexClient::Get(const VertexJobName& name) const {
  return DecodeObject(rest_.Call("GET", JobPath(name)), VertexCollection(kind_));
}

Result<VertexJobsPage> VertexClient::List(std::string_view project, std::string_view location,
                                          const VertexListQuery& query) const {
  std::string path =
      fmt::format("{}?pageSize={}", CollectionPath(project, location), query.page_size);
  if (!query.page_token.empty()) {
    path += "&pageToken=" + PercentEncode(query.page_token);
  }
  if (!query.filter.empty()) {
    path += "&filter=" + PercentEncode(query.filter);
  }
  auto page = DecodeObject(rest_.Call("GET", path), "list response");
  if (!page.ok()) {
    return page.status();
  }
  VertexJobsPage out;
  if (const auto token = page->find("nextPageToken"); token != page->end()) {
    if (!token->is_string()) {
      return BadAnswer("list response", "nextPageToken is not a string");
    }
    out.next_page_token = token->get<std::string>();
  }
  const auto jobs = page->find(std::string(VertexCollection(kind_)));
  if (jobs == page->end()) {
    return out;
  }
  if (!jobs->is_array()) {
    return BadAnswer("list response", fmt::format("{} is not a list", VertexCollection(kind_)));
  }
  for (json& job : *jobs) {
    out.jobs.push_back(std::move(job));
  }
  return out;
}

Status VertexClient::Cancel(const VertexJobName& name) const {
  return rest_.Call("POST", JobPath(name) + ":cancel", "{}").status();
}

}  // namespace trainyard::cli
