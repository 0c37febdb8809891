#include "cli/follow/log_follower.h"

#include <optional>
#include <utility>

#include "cli/follow/log_query.h"

namespace trainyard::cli {
namespace {

// One poll: every page of the entries between the position and `upper` (none: no upper bound).
Status Poll(FollowSource& source, const std::vector<std::string>& filters, LogPosition& position,
            std::optional<WallTime> upper, const FollowHandlers& handlers) {
  const std::string filter = PollFilter(filters, position, upper);
  std::string page_token;
  while (true) {
    auto page = source.ListEntries(filter, page_token);
    if (!page.ok()) {
      return page.status();
    }
    for (const ListedLogEntry& entry : page->entries) {
      if (position.Update(entry.timestamp, entry.insert_id)) {
        handlers.entry(entry);
      }
    }
    if (page->next_page_token.empty()) {
      return Status();
    }
    if (page->next_page_token == page_token) {
      return Status::Internal("The server returned the same page token twice; stopping.");
    }
    page_token = std::move(page->next_page_token);
  }
}

}  // namespace

Result<FollowResult> FollowJobLogs(FollowSource& source, const Clock& clock,
                                   const FollowOptions& options, const FollowHandlers& handlers) {
  const std::vector<std::string>& filters = options.filters;
  LogPosition position;
  while (true) {
    const WallTime now = clock.Now();
    auto job = source.GetJob();
    if (!job.ok()) {
      return job.status();
    }
    const bool ended = job->end_time.has_value();
    FollowProgress progress{.job = *std::move(job), .now = now};
    if (options.watch_replicas && !ended) {
      if (auto replicas = source.ListReplicas(); replicas.ok()) {
        progress.replicas = *std::move(replicas);
      }
    }
    const std::optional<WallTime> upper =
        ended ? std::nullopt : std::optional<WallTime>(now - options.lag);
    TY_RETURN_IF_ERROR(Poll(source, filters, position, upper, handlers));
    if (handlers.progress) {
      handlers.progress(progress);
    }
    if (ended) {
      return FollowResult{.end = FollowEnd::kJobEnded, .job = std::move(progress.job)};
    }
    if (!handlers.wait(options.polling_interval)) {
      return FollowResult{.end = FollowEnd::kInterrupted, .job = std::move(progress.job)};
    }
  }
}

}  // namespace trainyard::cli
