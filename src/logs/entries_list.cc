#include "logs/entries_list.h"

#include <cstddef>
#include <optional>
#include <utility>

#include "logs/log_filter.h"
#include "logs/log_reader.h"

namespace trainyard::logs {

Result<std::vector<std::string>> ListProjects(const ListRequest& request) {
  Result<LogFilter> filter = LogFilter::Parse(request.query.filter);
  if (!filter.ok()) {
    return filter.status();
  }
  return ResolveProjects(request.query.projects, filter->scope());
}

Result<ListPage> ListEntries(const ListRequest& request, const LogCatalog& catalog) {
  Result<LogFilter> filter = LogFilter::Parse(request.query.filter);
  if (!filter.ok()) {
    return filter.status();
  }
  const LogFilter::Scope& scope = filter->scope();
  ListQuery query = request.query;  // what a page token is tied to: the projects read
  Result<std::vector<std::string>> projects = ResolveProjects(std::move(query.projects), scope);
  if (!projects.ok()) {
    return projects.status();
  }
  query.projects = *std::move(projects);
  std::optional<Cursor> after;
  if (!request.page_token.empty()) {
    Result<Cursor> cursor = DecodePageToken(request.page_token, query);
    if (!cursor.ok()) {
      return cursor.status();
    }
    after = *std::move(cursor);
  }
  ListPage page{.sources = std::make_unique<const std::vector<LogSource>>(
                    SourcesFor(query.projects, scope, catalog))};
  const LogFilter& matcher = *filter;
  Result<ReadResult> read = ReadEntries(
      ReadRequest{.sources = page.sources.get(),
                  .matches = [&matcher](const LogEntry& entry) { return matcher.Matches(entry); },
                  .min_time = scope.min_time,
                  .max_time = scope.max_time,
                  .after = std::move(after),
                  .order = query.order,
                  .limit = static_cast<std::size_t>(request.page_size)});
  if (!read.ok()) {
    return read.status();
  }
  page.entries = std::move(read->entries);
  if (read->more && !page.entries.empty()) {
    page.next_page_token = EncodePageToken(query, page.entries.back());
  }
  return page;
}

}  // namespace trainyard::logs
