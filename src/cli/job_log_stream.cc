#include "cli/job_log_stream.h"

#include <utility>
#include <vector>

#include "base/clock.h"
#include "cli/interrupt.h"
#include "cli/log_entries.h"
#include "cli/logging_client.h"
#include "cli/ml_client.h"
#include "cli/status_line.h"

namespace trainyard::cli {
namespace {

class ServerFollowSource final : public FollowSource {
 public:
  ServerFollowSource(const RestClient& rest, std::string project, std::string job_id)
      : ml_(rest), logging_(rest), project_(std::move(project)), job_id_(std::move(job_id)) {}

  Result<model::Job> GetJob() override { return ml_.GetJob(project_, job_id_); }
  Result<LogEntriesPage> ListEntries(const std::string& filter,
                                     const std::string& page_token) override {
    return logging_.ListEntries(project_, filter, page_token);
  }
  Result<std::vector<ReplicaStatus>> ListReplicas() override {
    return logging_.ListReplicas(project_, job_id_);
  }

 private:
  MlClient ml_;
  LoggingClient logging_;
  std::string project_;
  std::string job_id_;
};

}  // namespace

Result<FollowResult> StreamJobLogs(const RestClient& rest, const LogStreamOptions& options,
                                   std::ostream& rows, std::ostream& terminal) {
  ServerFollowSource source(rest, options.project, options.job_id);
  const SystemClock clock;
  const InterruptScope interrupt;
  StatusLine status(terminal, options.status_line);
  const FollowHandlers handlers{
      .entry =
          [&](const ListedLogEntry& entry) {
            status.Clear();
            rows << FormatLogEntry(entry, options.allow_multiline, LocalLogDate);
          },
      .progress =
          [&](const FollowProgress& progress) {
            rows.flush();
            status.Show(FormatStatusLine(progress));
          },
      .wait = [&](std::chrono::milliseconds duration) { return interrupt.Wait(duration); },
  };
  Result<FollowResult> result = FollowJobLogs(source, clock,
                                              {.job_id = options.job_id,
                                               .task_name = options.task_name,
                                               .polling_interval = options.polling_interval,
                                               .watch_replicas = options.status_line},
                                              handlers);
  status.Clear();
  rows.flush();
  return result;
}

}  // namespace trainyard::cli
