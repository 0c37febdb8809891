// The logging v2 API's `entries:list` (docs/reference/ai-platform-training.md §10), as `gcloud
// ai-platform jobs stream-logs` calls it: `POST /v2/entries:list` with a JSON body {filter,
// orderBy, pageSize, pageToken, resourceNames}, answered with {"entries":[LogEntry…],
// "nextPageToken":"…"} (or {}) from the record files of the jobs under the data directory
// (control/log_catalog.h). The handler decodes and encodes; between, one call, logs::ListEntries
// (logs/entries_list.h), applies logs/'s rules: the filter (logs/log_filter.h), the projects and
// page size (logs/list_query.h), the files the filter's scope reads (logs/log_sources.h), and
// logs/log_reader.h does the reading. Each project's activity
// audit log (store/audit_store.h, logName "projects/<p>/logs/cloudaudit.googleapis.com%2Factivity")
// is read with its jobs' logs, its entries AuditLog protoPayloads; "projects/-" is the server-wide
// one. Page tokens are opaque, checksummed and tied to the filter, order and projects they were
// issued for, and `orderBy` is one of two (logs/list_query.h). Thread-safe: each request reads
// files only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "logs/log_entry.h"
#include "server/router.h"

namespace trainyard::server {

// The projects an `entries:list` request body reads (its resourceNames, else its filter's
// project), or the error the route answers it with. The server-wide audit log ("projects/-")
// is the project "", which only a role spanning projects may read.
Result<std::vector<std::string>> EntriesListProjects(std::string_view body);

// `entry` as entries:list answers it (a LogEntry of the document's schema): a job's line as
// textPayload, the service's as jsonPayload.message, an audit entry's protoPayload.
std::string LogEntryJson(const logs::LogEntry& entry);

// Adds `POST /v2/entries:list` to `router`, reading logs under `data_dir`.
void AddLoggingV2Routes(Router& router, std::string data_dir);

}  // namespace trainyard::server
