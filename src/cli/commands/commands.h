// Internal to cli/: the command tree and the verbs behind it. `Run` is `Main` without the
// process: arguments, output streams and environment are parameters, so tests can drive it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "cli/client/rest_client.h"
#include "cli/commands/environment.h"
#include "cli/commands/submit_flags.h"
#include "cli/follow/log_follower.h"

namespace CLI {
class App;
}  // namespace CLI

namespace trainyard::cli {

// `args` excludes the program name. Returns the exit code: 0, 1 for a failed command, 2 for a
// command line that does not parse.
int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const Environment& env);

// A flag taking one value; given twice, the last one wins (as with argparse).
void AddValueFlag(CLI::App& command, const std::string& name, std::optional<std::string>& target,
                  const std::string& help);

// A flag that may be repeated; `target` gets every value, in order.
void AddRepeatedFlag(CLI::App& command, const std::string& name, std::vector<std::string>& target,
                     const std::string& help);

// Registers the `jobs submit training` flags (also used by `jobs validate`) on `command`.
void AddTrainingFlags(CLI::App& command, RawTrainingFlags& raw,
                      std::optional<std::string>& project);

// The server and project an API verb talks to (environment.h resolves them), and how it proves
// who is calling (issue #17): the token in `token_file` (--token-file), else `token`
// ($TRAINYARD_TOKEN), else none.
struct ApiTarget {
  std::string server;
  std::string project;
  std::optional<std::string> token_file;
  std::optional<std::string> token;
  std::string ca_file;  // --ca-file, else $TRAINYARD_CA_FILE: an https server's CA
};

// The client options for `target`: its bearer token, read from its token file (surrounding
// whitespace trimmed), and its CA file. FAILED_PRECONDITION naming the file when it cannot be read
// or is empty.
Result<RestOptions> RestOptionsFor(const ApiTarget& target);

// The client for `target.server`, or nullopt after printing why there is none (as `command`).
std::optional<RestClient> Connect(const ApiTarget& target, std::string_view command,
                                  std::ostream& err);

// A positive integer flag (`--limit`, `--page-size`), `absent` when not given; nullopt after
// printing, as `command`, why `text` is not one.
std::optional<std::int64_t> PositiveFlag(const std::optional<std::string>& text,
                                         std::string_view flag, std::int64_t absent,
                                         std::string_view command, std::ostream& err);

// The items of a list call, page after page as gcloud reads them: `fetch(page_token)` gives a
// page (its `jobs` and `next_page_token`, "" at the end), read until the last page or `limit`
// items, then cut to `limit`. A server that gives back the token it was asked with is an INTERNAL
// error, not an endless loop.
template <typename Item, typename Fetch>
Result<std::vector<Item>> ReadPages(std::int64_t limit, const Fetch& fetch) {
  std::vector<Item> items;
  std::string token;
  while (static_cast<std::int64_t>(items.size()) < limit) {
    auto page = fetch(token);
    if (!page.ok()) {
      return page.status();
    }
    items.insert(items.end(), page->jobs.begin(), page->jobs.end());
    if (page->next_page_token.empty()) {
      break;
    }
    if (page->next_page_token == token) {
      return Status::Internal("The server returned the same page token twice; stopping.");
    }
    token = page->next_page_token;
  }
  if (static_cast<std::int64_t>(items.size()) > limit) {
    items.resize(static_cast<std::size_t>(limit));
  }
  return items;
}

// Flag text of the API verbs, checked by the verbs with gcloud's messages.
struct ListFlags {
  std::optional<std::string> filter;
  std::optional<std::string> limit;
  std::optional<std::string> page_size;
};

// Flags of `jobs stream-logs`.
struct StreamLogsFlags {
  std::optional<std::string> task_name;         // every task when absent or empty
  std::optional<std::string> polling_interval;  // seconds, checked by the verb; default 1
  bool allow_multiline_logs = false;
};

struct UpdateFlags {
  std::vector<std::string> update_labels;  // one entry per occurrence
  std::vector<std::string> remove_labels;
  bool clear_labels = false;
};

// What a `stream-logs` verb follows: the job's source on a connected client, the clauses that
// select its entries, and whether rows have a trial column (log_query.h, job_log_stream.h).
struct LogFollowing {
  std::function<std::unique_ptr<FollowSource>(const RestClient&)> source;
  std::vector<std::string> filters;
  bool trial_column = true;
};

// Follows a job's logs to its end on `out` (a status line on `err` when `stderr_is_tty`), with
// `flags`' polling interval and multi-line choice; messages as `command`.
int RunLogStream(std::string_view command, const ApiTarget& target, const LogFollowing& following,
                 const StreamLogsFlags& flags, bool stderr_is_tty, std::ostream& out,
                 std::ostream& err);

// The verbs; each returns the exit code and writes its result to `out`, problems to `err`.
// `submit training` sends the job to `server` unless `dry_run`; with `--stream-logs` it then
// follows the job's logs to its end, with a status line when `stderr_is_tty`.
int RunSubmitTraining(const RawTrainingFlags& raw, bool dry_run, const ApiTarget& target,
                      const catalog::Catalog& catalog, bool stderr_is_tty, std::ostream& out,
                      std::ostream& err);
int RunValidate(const RawTrainingFlags& raw, const catalog::Catalog& catalog, std::ostream& out,
                std::ostream& err);
// `jobs export JOB --format tfjob`: the job as a kubeflow.org/v1 TFJob manifest for a real
// Kubeflow cluster (kube/tfjob_export.h); what cannot be mapped is a comment or an error.
int RunExport(const ApiTarget& target, const std::string& job_id, const std::string& format,
              std::ostream& out, std::ostream& err);

int RunDescribe(const ApiTarget& target, const std::string& job_id, const std::string& format,
                std::ostream& out, std::ostream& err);
int RunList(const ApiTarget& target, const ListFlags& flags, std::ostream& out, std::ostream& err);
int RunCancel(const ApiTarget& target, const std::string& job_id, std::ostream& err);
// `jobs suspend` (`suspend`) and `jobs resume` (cli/commands/jobs_suspend_commands.cc).
int RunSuspend(const ApiTarget& target, const std::string& job_id, bool suspend, std::ostream& err);
// For `jobs describe`: a line on `err` when the job is suspended (nothing when it is not, or the
// server cannot say).
void NoteSuspension(const RestClient& rest, const std::string& project, const std::string& job_id,
                    std::ostream& err);
// For `jobs describe` of a QUEUED job: its queue position and why it waits ("waitReason: …"), as
// the cluster view has them, on `err` (nothing when the job is not in the queue, or the server
// cannot say).
void NoteQueued(const RestClient& rest, const std::string& project, const std::string& job_id,
                std::ostream& err);
// Follows the job's logs to its end; a status line on `err` when `stderr_is_tty`.
int RunStreamLogs(const ApiTarget& target, const std::string& job_id, const StreamLogsFlags& flags,
                  bool stderr_is_tty, std::ostream& out, std::ostream& err);
int RunUpdate(const ApiTarget& target, const std::string& job_id, const UpdateFlags& flags,
              std::ostream& err);
int RunCatalogListing(std::string_view listing, std::string_view format,
                      const catalog::Catalog& catalog, std::ostream& out, std::ostream& err);

}  // namespace trainyard::cli
