#include "api/logging/handlers.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "access/audit.h"
#include "base/json_dialects.h"
#include "base/json_reader.h"
#include "base/time_format.h"
#include "control/job_layout.h"
#include "logs/list_query.h"
#include "logs/log_filter.h"
#include "logs/log_reader.h"
#include "model/project_id.h"
#include "server/rpc_error.h"
#include "store/audit_store.h"
#include "validate/validate.h"

namespace trainyard::server {
namespace {

using nlohmann::json;

// Cloud Logging's documented page sizes: 0 (or absent) means the default; above the maximum,
// or negative, the request is rejected.
constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 1000;
constexpr std::string_view kProjectsPrefix = "projects/";
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

struct ListRequest {
  std::string filter;
  logs::Order order = logs::Order::kAscending;
  int page_size = kDefaultPageSize;
  std::string page_token;
  std::vector<std::string> projects;  // from resourceNames and projectIds, without repeats
};

void AddProject(std::string_view project, std::string_view field,
                std::vector<FieldViolation>& violations, ListRequest& out) {
  if (!model::IsValidProjectId(project) && project != access::kServerWideProject) {
    violations.push_back({std::string(field), "The project id is malformed."});
  } else if (std::ranges::find(out.projects, project) == out.projects.end()) {
    out.projects.emplace_back(project);
  }
}

// google.logging.v2.ListLogEntriesRequest's field types, as ml v1's words name them.
constexpr JsonNames kStringField{.type = "TYPE_STRING"};
constexpr JsonNames kInt32Field{.type = "TYPE_INT32"};

// The projects a list of `resourceNames` ("projects/<PROJECT_ID>") or `projectIds` names.
void ReadProjects(JsonObject& object, std::string_view key, std::vector<FieldViolation>& violations,
                  ListRequest& out) {
  const std::vector<std::string> names = object.StringList(key, kStringField);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string field = JsonIndexPath(key, i);
    std::string_view name = names[i];
    if (key == kResourceNames) {
      if (!name.starts_with(kProjectsPrefix)) {
        violations.push_back(
            {field, "Only \"projects/<PROJECT_ID>\" resource names are supported here."});
        continue;
      }
      name.remove_prefix(kProjectsPrefix.size());
    }
    AddProject(name, field, violations, out);
  }
}

// A body that is not a request at all: Google names no field then.
Status BadBody(std::string description) {
  std::string message = description;
  return Status::FromCode(Code::kInvalidArgument, std::move(message),
                          {FieldViolation{"", std::move(description)}});
}

Result<ListRequest> DecodeListRequest(std::string_view body) {
  ListRequest request;
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
  request.filter = object.String(kFilter, kStringField);
  request.page_token = object.String(kPageToken, kStringField);
  std::string order;
  if (const json* value = object.Take(kOrderBy);
      value != nullptr && reader.String(*value, kOrderBy, order, kStringField)) {
    if (const std::optional<logs::Order> parsed = logs::ParseOrderBy(order)) {
      request.order = *parsed;
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
    if (size < 0 || size > kMaxPageSize) {
      const std::string why = fmt::format("expected an integer from 0 to {} (0 means {})",
                                          kMaxPageSize, kDefaultPageSize);
      reader.Report({.fault = JsonFault::kInvalid,
                     .at = kPageSize,
                     .parent = kPageSize,
                     .value = value,
                     .names = kInt32Field,
                     .detail = why});
    } else if (size > 0) {
      request.page_size = size;
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

// What a page token is tied to (logs/list_query.h).
logs::ListQuery QueryOf(const ListRequest& request) {
  return {.filter = request.filter, .order = request.order, .projects = request.projects};
}

// ---- Sources and entries ----

// The jobs of `project` to read: the filter's job, or every job directory.
std::vector<std::string> JobsToRead(const std::string& data_dir, const std::string& project,
                                    const logs::LogFilter::Scope& scope) {
  if (scope.job_id.has_value()) {
    if (validate::IsStoredJobId(*scope.job_id)) {
      return {*scope.job_id};
    }
    return {};  // no such job can exist
  }
  std::vector<std::string> jobs;
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(data_dir) / "jobs" / project;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (validate::IsStoredJobId(name) && it->is_directory(ec)) {
      jobs.push_back(std::move(name));
    }
  }
  std::ranges::sort(jobs);
  return jobs;
}

// `project`'s activity audit log, when the scope can hold its entries (none has a job).
std::optional<logs::LogSource> AuditSource(const std::string& data_dir, const std::string& project,
                                           const logs::LogFilter::Scope& scope) {
  const std::string log_id(access::kAuditLogId);
  if (scope.job_id.has_value() ||
      (scope.task_names.has_value() && !scope.task_names->contains(log_id))) {
    return std::nullopt;
  }
  return logs::LogSource{.path = store::AuditLogPath(store::AuditDir(data_dir), project),
                         .project = project,
                         .task_name = log_id,
                         .audit = true};
}

std::vector<logs::LogSource> SourcesToRead(const std::string& data_dir, const ListRequest& request,
                                           const logs::LogFilter::Scope& scope) {
  std::vector<logs::LogSource> sources;
  for (const std::string& project : request.projects) {
    if (scope.project.has_value() && *scope.project != project) {
      continue;
    }
    if (std::optional<logs::LogSource> audit = AuditSource(data_dir, project, scope)) {
      sources.push_back(*std::move(audit));
    }
    if (project == access::kServerWideProject) {
      continue;  // no jobs
    }
    for (const std::string& job : JobsToRead(data_dir, project, scope)) {
      for (logs::LogSource& source :
           logs::ListSources(control::JobLayout(data_dir, project, job).logs_dir(), project, job)) {
        if (!scope.task_names.has_value() || scope.task_names->contains(source.task_name)) {
          sources.push_back(std::move(source));
        }
      }
    }
  }
  return sources;
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

// The filter's project when the request names none in resourceNames.
Status ResolveProjects(const logs::LogFilter::Scope& scope, ListRequest& request) {
  if (!request.projects.empty()) {
    return Status();
  }
  if (!scope.project.has_value() ||
      (!model::IsValidProjectId(*scope.project) && *scope.project != access::kServerWideProject)) {
    return Status::InvalidArgument(std::vector<FieldViolation>{
        {std::string(kResourceNames),
         "Name the project to read: resourceNames [\"projects/<PROJECT_ID>\"], or a filter "
         "with resource.labels.project_id=\"<PROJECT_ID>\"."}});
  }
  request.projects.push_back(*scope.project);
  return Status();
}

HttpResponse ListEntries(const std::string& data_dir, const RoutedRequest& routed) {
  Result<ListRequest> request = DecodeListRequest(routed.http.body);
  if (!request.ok()) {
    return ErrorResponse(request.status());
  }
  Result<logs::LogFilter> filter = logs::LogFilter::Parse(request->filter);
  if (!filter.ok()) {
    return ErrorResponse(filter.status());
  }
  const logs::LogFilter::Scope& scope = filter->scope();
  if (const Status resolved = ResolveProjects(scope, *request); !resolved.ok()) {
    return ErrorResponse(resolved);
  }
  std::optional<logs::Cursor> after;
  if (!request->page_token.empty()) {
    Result<logs::Cursor> cursor = logs::DecodePageToken(request->page_token, QueryOf(*request));
    if (!cursor.ok()) {
      return ErrorResponse(cursor.status());
    }
    after = *std::move(cursor);
  }
  const std::vector<logs::LogSource> sources = SourcesToRead(data_dir, *request, scope);
  const logs::LogFilter& matcher = *filter;
  Result<logs::ReadResult> read = logs::ReadEntries(logs::ReadRequest{
      .sources = &sources,
      .matches = [&matcher](const logs::LogEntry& entry) { return matcher.Matches(entry); },
      .min_time = scope.min_time,
      .max_time = scope.max_time,
      .after = std::move(after),
      .order = request->order,
      .limit = static_cast<std::size_t>(request->page_size)});
  if (!read.ok()) {
    return ErrorResponse(read.status());
  }
  nlohmann::ordered_json body = nlohmann::ordered_json::object();
  if (!read->entries.empty()) {
    nlohmann::ordered_json& entries = body["entries"] = nlohmann::ordered_json::array();
    for (const logs::LogEntry& entry : read->entries) {
      entries.push_back(EncodeEntry(entry));
    }
  }
  if (read->more && !read->entries.empty()) {
    body["nextPageToken"] = logs::EncodePageToken(QueryOf(*request), read->entries.back());
  }
  return JsonResponse(body.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace

std::string LogEntryJson(const logs::LogEntry& entry) {
  return EncodeEntry(entry).dump();
}

Result<std::vector<std::string>> EntriesListProjects(std::string_view body) {
  Result<ListRequest> request = DecodeListRequest(body);
  if (!request.ok()) {
    return request.status();
  }
  Result<logs::LogFilter> filter = logs::LogFilter::Parse(request->filter);
  if (!filter.ok()) {
    return filter.status();
  }
  TY_RETURN_IF_ERROR(ResolveProjects(filter->scope(), *request));
  for (std::string& project : request->projects) {
    if (project == access::kServerWideProject) {
      project.clear();  // the server-wide log: only a role that spans projects may read it
    }
  }
  return std::move(request->projects);
}

void AddLoggingV2Routes(Router& router, std::string data_dir) {
  router.Add(
      {.method = "POST",
       .pattern = "/v2/entries:list",
       .name = "entries.list",
       .handler = [data_dir = std::move(data_dir)](
                      const RoutedRequest& request) { return ListEntries(data_dir, request); },
       .access = {{.permission = "logging.logEntries.list", .from = ProjectFrom::kLogRequest}},
       .audit = {.service = kLoggingService,
                 .method = "google.logging.v2.LoggingServiceV2.ListLogEntries"}});
}

}  // namespace trainyard::server
