#include "cli/follow/job_log_stream.h"

#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/time_format.h"
#include "cli/client/logging_client.h"
#include "cli/client/ml_client.h"
#include "cli/follow/interrupt.h"
#include "cli/follow/log_entries.h"
#include "cli/follow/status_line.h"

namespace trainyard::cli {
namespace {

class MlSource final : public FollowSource {
 public:
  MlSource(const RestClient& rest, std::string project, std::string job_id)
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

// Vertex AI's JobState names and the ml v1 state each reads as on the status line.
constexpr std::array<std::pair<std::string_view, model::JobState>, 8> kVertexStates = {{
    {"JOB_STATE_QUEUED", model::JobState::kQueued},
    {"JOB_STATE_PENDING", model::JobState::kPreparing},
    {"JOB_STATE_RUNNING", model::JobState::kRunning},
    {"JOB_STATE_SUCCEEDED", model::JobState::kSucceeded},
    {"JOB_STATE_FAILED", model::JobState::kFailed},
    {"JOB_STATE_CANCELLING", model::JobState::kCancelling},
    {"JOB_STATE_CANCELLED", model::JobState::kCancelled},
    {"JOB_STATE_EXPIRED", model::JobState::kFailed},
}};

class VertexSource final : public FollowSource {
 public:
  VertexSource(const RestClient& rest, VertexKind kind, VertexJobName name)
      : vertex_(rest, kind), logging_(rest), name_(std::move(name)) {}

  Result<model::Job> GetJob() override {
    auto got = vertex_.Get(name_);
    if (!got.ok()) {
      return got.status();
    }
    model::Job job{.job_id = name_.id};
    const std::string state = StringField(*got, "state");
    for (const auto& [vertex, ml] : kVertexStates) {
      if (vertex == state) {
        job.state = ml;
      }
    }
    const auto time = [&](const char* field) { return ParseTimestamp(StringField(*got, field)); };
    job.create_time = time("createTime");
    job.start_time = time("startTime");
    job.end_time = time("endTime");
    return job;
  }
  Result<LogEntriesPage> ListEntries(const std::string& filter,
                                     const std::string& page_token) override {
    return logging_.ListEntries(name_.project, filter, page_token);
  }
  Result<std::vector<ReplicaStatus>> ListReplicas() override {
    return logging_.ListReplicas(name_.project, name_.id);
  }

 private:
  VertexClient vertex_;
  LoggingClient logging_;
  VertexJobName name_;
};

}  // namespace

std::unique_ptr<FollowSource> MlJobFollowSource(const RestClient& rest, std::string project,
                                                std::string job_id) {
  return std::make_unique<MlSource>(rest, std::move(project), std::move(job_id));
}

std::unique_ptr<FollowSource> VertexJobFollowSource(const RestClient& rest, VertexKind kind,
                                                    VertexJobName name) {
  return std::make_unique<VertexSource>(rest, kind, std::move(name));
}

Result<FollowResult> StreamJobLogs(FollowSource& source, const LogStreamOptions& options,
                                   std::ostream& rows, std::ostream& terminal) {
  const SystemClock clock;
  const InterruptScope interrupt;
  StatusLine status(terminal, options.status_line);
  const FollowHandlers handlers{
      .entry =
          [&](const ListedLogEntry& entry) {
            status.Clear();
            rows << FormatLogEntry(entry, options.allow_multiline, LocalLogDate,
                                   options.trial_column);
          },
      .progress =
          [&](const FollowProgress& progress) {
            rows.flush();
            status.Show(FormatStatusLine(progress));
          },
      .wait = [&](std::chrono::milliseconds duration) { return interrupt.Wait(duration); },
  };
  Result<FollowResult> result = FollowJobLogs(source, clock,
                                              {.filters = options.filters,
                                               .polling_interval = options.polling_interval,
                                               .watch_replicas = options.status_line},
                                              handlers);
  status.Clear();
  rows.flush();
  return result;
}

}  // namespace trainyard::cli
