#include "api/logging/handlers.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "access/audit.h"
#include "base/json_dialects.h"
#include "base/json_reader.h"
#include "control/log_catalog.h"
#include "logs/entries_list.h"
#include "logs/list_query.h"
#include "logs/log_sources.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

using nlohmann::json;

constexpr std::string_view kResourceType = "ml_job";
constexpr std::string_view kTrialLabel = "ml.googleapis.com/trial_id";

// The fields of google.logging.v2.ListLogEntriesRequest read here (`projectIds` is deprecated
// but still accepted).
constexpr std::string_view kFilter = "filter";
constexpr std::string_view kOrderBy = "orderBy";
constexpr std::string_view kPageSize = "pageSize";
constexpr std::string_view kPageToken = "pageToken";
constexpr std::string_view kResourceNames = "resourceNames";
constexpr std::string_view kProjectIds = "projectIds";

// google.logging.v2.ListLogEntriesRequest's field types, as ml v1's words name them.
constexpr JsonNames kStringField{.type = "TYPE_STRING"};
constexpr JsonNames kInt32Field{.type = "TYPE_INT32"};

// The projects a list of `resourceNames` ("projects/<PROJECT_ID>") or `projectIds` names.
void ReadProjects(JsonObject& object, std::string_view key, std::vector<FieldViolation>& violations,
                  logs::ListRequest& out) {
  const std::vector<std::string> names = object.StringList(key, kStringField);
  const logs::ProjectNaming naming =
      key == kResourceNames ? logs::ProjectNaming::kResourceName : logs::ProjectNaming::kProjectId;
  for (std::size_t i = 0; i < names.size(); ++i) {
    logs::AddProject(names[i], naming, JsonIndexPath(key, i), violations, out.query.projects);
  }
}

// A body that is not a request at all: Google names no field then.
Status BadBody(std::string description) {
  std::string message = description;
  return Status::FromCode(Code::kInvalidArgument, std::move(message),
                          {FieldViolation{"", std::move(description)}});
}

Result<logs::ListRequest> DecodeListRequest(std::string_view body) {
  logs::ListRequest request;
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return request;
  }
  json document;
  try {
    document = json::parse(body);
  } catch (const json::exception& e) {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 7: …".
    std::string_view why = e.what();
    if (const auto end = why.find("] "); why.starts_with('[') && end != why.npos) {
      why.remove_prefix(end + 2);
    }
    return BadBody(fmt::format("Invalid JSON payload received. {}", why.substr(0, 200)));
  }
  if (!document.is_object()) {
    return BadBody(
        "Invalid JSON payload received. Expected a JSON object (ListLogEntriesRequest).");
  }
  std::vector<FieldViolation> violations;
  // Google's words (ml v1's dialect), each violation on the member it is about, an unknown too.
  JsonReader reader(kMlV1JsonDialect, [&violations](JsonError error) {
    violations.push_back({std::move(error.locus), std::move(error.message)});
  });
  JsonObject object(reader, document, "");
  request.query.filter = object.String(kFilter, kStringField);
  request.page_token = object.String(kPageToken, kStringField);
  std::string order;
  if (const json* value = object.Take(kOrderBy);
      value != nullptr && reader.String(*value, kOrderBy, order, kStringField)) {
    if (const std::optional<logs::Order> parsed = logs::ParseOrderBy(order)) {
      request.query.order = *parsed;
    } else {
      violations.push_back({std::string(kOrderBy),
                            fmt::format("Unsupported order {}: use \"timestamp asc\" (the default) "
                                        "or \"timestamp desc\".",
                                        QuoteForMessage(order))});
    }
  }
  std::int32_t size = 0;
  if (const json* value = object.Take(kPageSize);
      value != nullptr && reader.Int32(*value, kPageSize, size, kInt32Field)) {
    if (const std::optional<int> page_size = logs::PageSizeFor(size)) {
      request.page_size = *page_size;
    } else {
      reader.Report({.fault = JsonFault::kInvalid,
                     .at = kPageSize,
                     .parent = kPageSize,
                     .value = value,
                     .names = kInt32Field,
                     .detail = logs::PageSizeExpectation()});
    }
  }
  ReadProjects(object, kResourceNames, violations, request);
  ReadProjects(object, kProjectIds, violations, request);
  object.Finish();
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return request;
}

// An entry of the activity audit log: its record's protoPayload and resource, and what the
// record itself says.
nlohmann::ordered_json EncodeAuditEntry(const logs::LogEntry& entry) {
  const logs::LogSource& source = *entry.source;
  nlohmann::ordered_json record = nlohmann::ordered_json::parse(entry.text, nullptr, false);
  if (!record.is_object()) {  // a damaged line: shown, not hidden
    record = {{"protoPayload", {{"@type", "type.googleapis.com/google.cloud.audit.AuditLog"}}},
              {"resource", {{"type", "audited_resource"}}}};
  }
  nlohmann::ordered_json out = {
      {"protoPayload", std::move(record["protoPayload"])},
      {"insertId", entry.insert_id},
      {"resource", std::move(record["resource"])},
      {"timestamp", entry.timestamp},
      {"severity", logs::SeverityName(entry.severity)},
      {"logName", fmt::format("projects/{}/logs/{}", source.project, source.task_name)},
      {"receiveTimestamp", entry.timestamp}};
  return out;
}

// The LogEntry of docs/reference/ai-platform-training.md §10.2.
nlohmann::ordered_json EncodeEntry(const logs::LogEntry& entry) {
  const logs::LogSource& source = *entry.source;
  if (source.audit) {
    return EncodeAuditEntry(entry);
  }
  nlohmann::ordered_json out = {
      {"insertId", entry.insert_id},
      {"logName", fmt::format("projects/{}/logs/{}", source.project, source.task_name)},
      {"resource",
       {{"type", kResourceType},
        {"labels",
         {{"job_id", source.job_id},
          {"task_name", source.task_name},
          {"project_id", source.project}}}}}};
  if (!source.trial_id.empty()) {
    out["labels"] = {{kTrialLabel, source.trial_id}};
  }
  out["timestamp"] = entry.timestamp;
  out["receiveTimestamp"] = entry.timestamp;
  out["severity"] = logs::SeverityName(entry.severity);
  if (source.service) {
    out["jsonPayload"] = {{"message", entry.text}};
  } else {
    out["textPayload"] = entry.text;
  }
  return out;
}

HttpResponse ListEntries(const logs::LogCatalog& catalog, const RoutedRequest& routed) {
  Result<logs::ListRequest> request = DecodeListRequest(routed.http.body);
  if (!request.ok()) {
    return ErrorResponse(request.status());
  }
  Result<logs::ListPage> page = logs::ListEntries(*request, catalog);
  if (!page.ok()) {
    return ErrorResponse(page.status());
  }
  nlohmann::ordered_json body = nlohmann::ordered_json::object();
  if (!page->entries.empty()) {
    nlohmann::ordered_json& entries = body["entries"] = nlohmann::ordered_json::array();
    for (const logs::LogEntry& entry : page->entries) {
      entries.push_back(EncodeEntry(entry));
    }
  }
  if (!page->next_page_token.empty()) {
    body["nextPageToken"] = page->next_page_token;
  }
  return JsonResponse(body.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace

std::string LogEntryJson(const logs::LogEntry& entry) {
  return EncodeEntry(entry).dump();
}

Result<std::vector<std::string>> EntriesListProjects(std::string_view body) {
  Result<logs::ListRequest> request = DecodeListRequest(body);
  if (!request.ok()) {
    return request.status();
  }
  Result<std::vector<std::string>> projects = logs::ListProjects(*request);
  if (!projects.ok()) {
    return projects.status();
  }
  for (std::string& project : *projects) {
    if (project == access::kServerWideProject) {
      project.clear();  // the server-wide log: only a role that spans projects may read it
    }
  }
  return projects;
}

void AddLoggingV2Routes(Router& router, std::string data_dir) {
  router.Add(
      {.method = "POST",
       .pattern = "/v2/entries:list",
       .name = "entries.list",
       .handler = [catalog = std::make_shared<const control::FileLogCatalog>(std::move(data_dir))](
                      const RoutedRequest& request) { return ListEntries(*catalog, request); },
       .access = {{.permission = "logging.logEntries.list", .from = ProjectFrom::kLogRequest}},
       .audit = {.service = kLoggingService,
                 .method = "google.logging.v2.LoggingServiceV2.ListLogEntries"}});
}

}  // namespace trainyard::server
