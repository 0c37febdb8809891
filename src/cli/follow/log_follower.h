// Following one job's logs until the job has ended, with nothing lost at the end: the polling
// loop behind `jobs stream-logs` and `submit training --stream-logs`. Each round reads the job;
// while it runs, it asks for every entry older than now minus `lag` (so a line recorded a moment
// late still comes in order in the next round), follows the pages, hands each new entry on,
// reports progress and waits `polling_interval`. Once the job has an `endTime` (the only end
// marker gcloud trusts, docs/reference/ai-platform-training.md §0.1 item 3), one last round without
// an upper bound reads whatever is left, and the follow ends. The bounds and the duplicate check
// are gcloud's (log_query.h); unlike gcloud, which checks the job only after two empty polls and at
// most every 10 s, this reads it every round, so it ends as soon as the job does. Clock and waiting
// are parameters, so tests drive it without sleeping. Not thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "cli/client/logging_client.h"
#include "cli/follow/log_entries.h"
#include "model/job.h"

namespace trainyard::cli {

// The server as following needs it, for one job; the CLI's is made of `MlClient` and
// `LoggingClient`, tests use a fake.
class FollowSource {
 public:
  virtual ~FollowSource() = default;
  virtual Result<model::Job> GetJob() = 0;
  virtual Result<LogEntriesPage> ListEntries(const std::string& filter,
                                             const std::string& page_token) = 0;
  virtual Result<std::vector<ReplicaStatus>> ListReplicas() = 0;
};

struct FollowOptions {
  // The clauses that select the job's entries (log_query.h: `JobLogFilters`,
  // `VertexJobLogFilters`); each poll adds its bounds.
  std::vector<std::string> filters;
  std::chrono::milliseconds polling_interval{1000};
  std::chrono::milliseconds lag{1000};  // gcloud waits 5 s
  bool watch_replicas = false;          // list the replicas every round (for a status line)
};

// What a round saw, after its entries were handed on.
struct FollowProgress {
  model::Job job;
  std::vector<ReplicaStatus> replicas;  // empty unless watched (and listed without error)
  WallTime now;                         // when the round started
};

struct FollowHandlers {
  std::function<void(const ListedLogEntry&)> entry;     // each new entry, oldest first
  std::function<void(const FollowProgress&)> progress;  // may be empty
  // Waits this long between rounds; returns false when the user interrupted (the follow ends).
  std::function<bool(std::chrono::milliseconds)> wait;
};

enum class FollowEnd { kJobEnded, kInterrupted };

struct FollowResult {
  FollowEnd end = FollowEnd::kJobEnded;
  model::Job job;  // as last read
};

// Follows until the job has ended and its last entries were read, or `wait` says to stop. The
// first error of a call ends it (a replica listing that fails only leaves the replicas out).
Result<FollowResult> FollowJobLogs(FollowSource& source, const Clock& clock,
                                   const FollowOptions& options, const FollowHandlers& handlers);

}  // namespace trainyard::cli
