// logging v2's `entries:list` as one call: a decoded request in, a page of entries out. The
// rules are list_query.h's (projects, page size, page tokens), log_filter.h's (the filter and
// its scope) and log_sources.h's (which files the scope reads); log_reader.h does the reading.
// The API handler (api/logging/handlers.h) decodes the body into a ListRequest and encodes the
// page. Reads the files the catalogue names; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "logs/list_query.h"
#include "logs/log_entry.h"
#include "logs/log_sources.h"

namespace trainyard::logs {

struct ListRequest {
  // The filter, the order and the projects named by resourceNames and projectIds (AddProject;
  // none: the filter's project, ResolveProjects).
  ListQuery query;
  int page_size = kDefaultPageSize;  // PageSizeFor
  std::string page_token;            // "" for the first page
};

struct ListPage {
  std::unique_ptr<const std::vector<LogSource>> sources;  // what the entries point into
  std::vector<LogEntry> entries;                          // in the request's order
  std::string next_page_token;                            // "" on the last page
};

// The projects `request` reads: its named ones, else its filter's. INVALID_ARGUMENT for a
// filter that does not parse, or when neither names a project.
Result<std::vector<std::string>> ListProjects(const ListRequest& request);

// The page `request` asks for, from the files `catalog` names. INVALID_ARGUMENT as ListProjects,
// and for a page token that is malformed or another query's; INTERNAL when a file cannot be read.
Result<ListPage> ListEntries(const ListRequest& request, const LogCatalog& catalog);

}  // namespace trainyard::logs
