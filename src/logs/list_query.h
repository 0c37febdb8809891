// The rules of logging v2's `entries:list` query beside its filter (logs/log_filter.h): the
// projects it reads, the page sizes and orders it accepts, and its page tokens. A page token is
// opaque to clients: the hex of the query's fingerprint (8 bytes: its filter, order and projects),
// the last entry's timestamp (27 bytes) and insertId, then a checksum of all that (8 bytes). The
// checksum catches a token that was edited or cut; the fingerprint one sent with a different query.
// A forged token could only move a caller within results it may read anyway. Pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "logs/log_entry.h"
#include "logs/log_filter.h"
#include "logs/log_reader.h"

namespace trainyard::logs {

// How a request names a project to read.
enum class ProjectNaming {
  kResourceName,  // `resourceNames`: "projects/<PROJECT_ID>"
  kProjectId,     // `projectIds` (deprecated): "<PROJECT_ID>"
};

// Adds the project `name` names to `projects`, once (a repeat adds nothing), or a violation on
// `field` (the member's path, "resourceNames[0]") when it names none: a project id
// (model::IsValidProjectId) or the server-wide log, "-" (access::kServerWideProject).
void AddProject(std::string_view name, ProjectNaming naming, std::string_view field,
                std::vector<FieldViolation>& violations, std::vector<std::string>& projects);

// The projects to read: `named` (by resourceNames and projectIds) when there are any, else the
// filter's project (resource.labels.project_id or a logName's). INVALID_ARGUMENT on
// "resourceNames" when neither names one.
Result<std::vector<std::string>> ResolveProjects(std::vector<std::string> named,
                                                 const LogFilter::Scope& scope);

// `pageSize`, as Cloud Logging documents it: 0 (or absent) is the default; above the maximum,
// or negative, the request is refused.
inline constexpr int kDefaultPageSize = 50;
inline constexpr int kMaxPageSize = 1000;

// The entries a page holds when `requested` asks; nullopt when `requested` is refused.
std::optional<int> PageSizeFor(std::int64_t requested);

// What a refused pageSize is told it should be.
std::string PageSizeExpectation();

// `orderBy`: "timestamp asc" and "timestamp desc", in any case and spacing; "timestamp" alone
// and "" ascend. nullopt for any other order.
std::optional<Order> ParseOrderBy(std::string_view text);

// What a page token is tied to: the next page must be asked for with the same query.
struct ListQuery {
  std::string filter;
  Order order = Order::kAscending;
  std::vector<std::string> projects;  // in the order the request names them
};

// The token of the page after `last`.
std::string EncodePageToken(const ListQuery& query, const LogEntry& last);

// Where the page `token` asks for starts; INVALID_ARGUMENT on "pageToken" when the token is
// malformed or altered, or was issued for a different query.
Result<Cursor> DecodePageToken(std::string_view token, const ListQuery& query);

}  // namespace trainyard::logs
