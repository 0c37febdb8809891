// What following a job's logs asks the server besides the job itself: the logging v2
// `entries.list` call exactly as gcloud 528 makes it (docs/reference/ai-platform-training.md §10.1:
// `POST v2/entries:list` with the filter, `orderBy: "timestamp asc"`, `pageSize: 1000` and the
// project as the only resource name), and trainyard's own listing of a job's replicas
// (`GET trainyard/v1/projects/{p}/jobs/{j}/replicas`), which gcloud has no equivalent of. Errors
// are the server's or the transport's (rest_client.h); an answer that does not decode is
// INTERNAL. Not thread-safe (as `RestClient`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cli/client/rest_client.h"
#include "cli/follow/log_entries.h"

namespace trainyard::cli {

// One replica of a running job, as the server's supervisor sees it.
struct ReplicaStatus {
  std::string task_name;  // "master-replica-0"
  std::string state;      // STARTING, RUNNING, RESTARTING, STOPPING or EXITED

  friend bool operator==(const ReplicaStatus&, const ReplicaStatus&) = default;
};

class LoggingClient {
 public:
  // gcloud's page size, the API's maximum.
  static constexpr int kPageSize = 1000;

  explicit LoggingClient(const RestClient& rest) : rest_(rest) {}

  // One page of the entries of `project` matching `filter`, oldest first; `page_token` is ""
  // for the first page.
  Result<LogEntriesPage> ListEntries(std::string_view project, std::string_view filter,
                                     std::string_view page_token) const;

  // The job's replicas (none when it has no running replica); NOT_FOUND for an unknown job.
  Result<std::vector<ReplicaStatus>> ListReplicas(std::string_view project,
                                                  std::string_view job_id) const;

 private:
  const RestClient& rest_;
};

}  // namespace trainyard::cli
