// The verbs that read and change submitted jobs: `jobs describe`, `list`, `cancel` and
// `update`, as gcloud 528 runs them against the ml v1 API (docs/reference/ai-platform-training.md
// §1.4), with trainyard's one difference: `list --filter` is sent to the server, which filters
// (§1.6).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/client/ml_client.h"
#include "cli/client/rest_client.h"
#include "cli/commands/commands.h"
#include "cli/commands/flag_values.h"
#include "cli/commands/labels_update.h"
#include "cli/output/error_output.h"
#include "cli/output/job_output.h"
#include "kube/tfjob_export.h"

namespace trainyard::cli {
namespace {

constexpr std::string_view kDescribeCommand = "trainyard.jobs.describe";
constexpr std::string_view kListCommand = "trainyard.jobs.list";
constexpr std::string_view kCancelCommand = "trainyard.jobs.cancel";
constexpr std::string_view kUpdateCommand = "trainyard.jobs.update";
constexpr std::string_view kExportCommand = "trainyard.jobs.export";
// The server's maximum (docs/reference/ai-platform-training.md §1.6).
constexpr std::int64_t kMaxPageSize = 100;

}  // namespace

std::optional<RestClient> Connect(const ApiTarget& target, std::string_view command,
                                  std::ostream& err) {
  Result<RestOptions> options = RestOptionsFor(target);
  if (!options.ok()) {
    PrintError(err, command, options.status().message());
    return std::nullopt;
  }
  auto rest = RestClient::ForUrl(target.server, *options);
  if (!rest.ok()) {
    PrintError(err, command, rest.status().message());
    return std::nullopt;
  }
  return *std::move(rest);
}

std::optional<std::int64_t> PositiveFlag(const std::optional<std::string>& text,
                                         std::string_view flag, std::int64_t absent,
                                         std::string_view command, std::ostream& err) {
  if (!text) {
    return absent;
  }
  auto value = ParsePositiveInt(*text);
  if (!value.ok()) {
    PrintError(err, command, "argument " + std::string(flag) + ": " + value.status().message());
    return std::nullopt;
  }
  return *value;
}

int RunExport(const ApiTarget& target, const std::string& job_id, const std::string& format,
              std::ostream& out, std::ostream& err) {
  if (format != "tfjob") {
    PrintError(err, kExportCommand,
               "argument --format: Invalid choice: '" + format + "'. Valid choices are [tfjob].");
    return 2;
  }
  const std::optional<RestClient> rest = Connect(target, kExportCommand, err);
  if (!rest) {
    return 1;
  }
  auto job = MlClient(*rest).GetJob(target.project, job_id);
  if (!job.ok()) {
    PrintApiError(err, kExportCommand, job.status());
    return 1;
  }
  // The project is the TFJob's namespace, as kubectl against trainyard has it.
  Result<std::string> manifest = kube::ExportTFJob(*job, target.project);
  if (!manifest.ok()) {
    PrintError(err, kExportCommand, manifest.status().message());
    return 1;
  }
  out << *manifest;
  return 0;
}

int RunDescribe(const ApiTarget& target, const std::string& job_id, const std::string& format,
                std::ostream& out, std::ostream& err) {
  auto job_format = ParseJobFormat(format);
  if (!job_format.ok()) {
    PrintError(err, kDescribeCommand, job_format.status().message());
    return 1;
  }
  const std::optional<RestClient> rest = Connect(target, kDescribeCommand, err);
  if (!rest) {
    return 1;
  }
  auto job = MlClient(*rest).GetJob(target.project, job_id);
  if (!job.ok()) {
    PrintApiError(err, kDescribeCommand, job.status());
    return 1;
  }
  out << FormatJob(*job, *job_format);
  if (job->state == model::JobState::kFailed && !job->error_message.empty()) {
    err << "\nJob [" << job->job_id << "] failed: " << job->error_message << "\n";
  }
  if (!model::IsTerminal(job->state)) {
    NoteSuspension(*rest, target.project, job_id, err);
  }
  if (job->state == model::JobState::kQueued) {
    NoteQueued(*rest, target.project, job_id, err);
  }
  return 0;
}

int RunList(const ApiTarget& target, const ListFlags& flags, std::ostream& out, std::ostream& err) {
  const std::optional<std::int64_t> limit = PositiveFlag(
      flags.limit, "--limit", std::numeric_limits<std::int64_t>::max(), kListCommand, err);
  const std::optional<std::int64_t> page_size =
      limit ? PositiveFlag(flags.page_size, "--page-size", kMaxPageSize, kListCommand, err)
            : std::nullopt;
  if (!limit || !page_size) {
    return 1;
  }
  const std::optional<RestClient> rest = Connect(target, kListCommand, err);
  if (!rest) {
    return 1;
  }
  const MlClient ml(*rest);
  const Result<std::vector<model::Job>> jobs =
      ReadPages<model::Job>(*limit, [&](const std::string& token) {
        return ml.ListJobs(
            target.project,
            ListJobsQuery{.page_size = static_cast<int>(std::min(*page_size, kMaxPageSize)),
                          .page_token = token,
                          .filter = flags.filter.value_or("")});
      });
  if (!jobs.ok()) {
    PrintApiError(err, kListCommand, jobs.status());
    return 1;
  }
  if (jobs->empty()) {
    err << "Listed 0 items.\n";
    return 0;
  }
  out << FormatJobsTable(*jobs, LocalDate);
  return 0;
}

int RunCancel(const ApiTarget& target, const std::string& job_id, std::ostream& err) {
  const std::optional<RestClient> rest = Connect(target, kCancelCommand, err);
  if (!rest) {
    return 1;
  }
  if (Status status = MlClient(*rest).CancelJob(target.project, job_id); !status.ok()) {
    PrintApiError(err, kCancelCommand, status);
    return 1;
  }
  return 0;
}

int RunUpdate(const ApiTarget& target, const std::string& job_id, const UpdateFlags& flags,
              std::ostream& err) {
  auto diff = ParseLabelsDiff(flags.update_labels, flags.remove_labels, flags.clear_labels);
  if (!diff.ok()) {
    PrintError(err, kUpdateCommand, diff.status().message());
    return 1;
  }
  if (!diff->MayHaveUpdates()) {
    PrintError(err, kUpdateCommand, "No updates requested.");
    return 1;
  }
  const std::optional<RestClient> rest = Connect(target, kUpdateCommand, err);
  if (!rest) {
    return 1;
  }
  const MlClient ml(*rest);
  auto job = ml.GetJob(target.project, job_id);
  if (!job.ok()) {
    PrintApiError(err, kUpdateCommand, job.status());
    return 1;
  }
  const LabelsUpdate update = ApplyLabelsDiff(*diff, job->labels);
  if (update.needs_update) {
    auto patched = ml.PatchJob(target.project, job_id, update.labels, "labels");
    if (!patched.ok()) {
      PrintApiError(err, kUpdateCommand, patched.status());
      return 1;
    }
  } else {
    err << "No update to perform.\n";
  }
  // gcloud says so even when there was nothing to change.
  err << "Updated ml engine job [" << job_id << "].\n";
  return 0;
}

}  // namespace trainyard::cli
