// The `jobs submit training` and `jobs validate` verbs: build the request (request_builder.h),
// then print it (`--dry-run`, checked offline with validate/ first), send it to the server, or
// (validate) only check it. A sent job is validated by the server, the one authority on what
// it accepts; its refusal lists every violation. Local packages (`--packages` files and the
// `--package-path` sdist) are uploaded to the server's storage API first, as gcloud uploads them
// to Cloud Storage; when an upload fails, nothing is submitted. With `--stream-logs`, the job's
// logs follow on stderr until it ends (job_log_stream.h), then its final state on stdout, and the
// exit status is 1 unless it SUCCEEDED, as in gcloud (jobs_util.SubmitTraining).
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/client/ml_client.h"
#include "cli/client/rest_client.h"
#include "cli/client/storage_client.h"
#include "cli/commands/commands.h"
#include "cli/commands/request_body.h"
#include "cli/commands/request_builder.h"
#include "cli/follow/job_log_stream.h"
#include "cli/follow/log_query.h"
#include "cli/output/error_output.h"
#include "cli/output/job_output.h"
#include "validate/validate.h"

namespace trainyard::cli {
namespace {

constexpr std::string_view kSubmitCommand = "trainyard.jobs.submit.training";
constexpr std::string_view kValidateCommand = "trainyard.jobs.validate";

// gcloud's follow-up (jobs_util._FOLLOW_UP_MESSAGE), with trainyard's commands.
constexpr std::string_view kFollowUp =
    "Your job is still active. You may view the status of your job with the command\n"
    "\n"
    "  $ trainyard jobs describe {0}\n"
    "\n"
    "or continue streaming the logs with the command\n"
    "\n"
    "  $ trainyard jobs stream-logs {0}\n";

// One "<field>: <description>" line per violation (or the message when there are none).
void PrintViolations(std::ostream& out, const Status& status) {
  if (status.violations().empty()) {
    out << status.message() << "\n";
    return;
  }
  for (const FieldViolation& violation : status.violations()) {
    out << violation.field << ": " << violation.description << "\n";
  }
}

std::string Problems(const Status& status) {
  const std::size_t n = status.violations().size();
  return n == 1 ? "1 problem" : std::to_string(n) + " problems";
}

int PrintDryRun(const SubmitRequest& request, const catalog::Catalog& catalog, std::ostream& out,
                std::ostream& err) {
  if (Status valid = validate::ValidateJob(request.job, catalog); !valid.ok()) {
    PrintError(err, kSubmitCommand,
               "The job request is invalid (" + Problems(valid) + "); nothing was submitted:");
    PrintViolations(err, valid);
    return 1;
  }
  for (const PackageUpload& upload : request.packages.uploads) {
    err << "Would upload [" << upload.local_path.string() << "] to [" << upload.destination.Url()
        << "]\n";
  }
  err << "Would POST to /v1/projects/" << request.project << "/jobs:\n";
  out << CreateJobRequestBody(request.job, request.explicit_fields) << "\n";
  return 0;
}

std::string FollowUp(const std::string& job_id) {
  return fmt::format(fmt::runtime(kFollowUp), job_id);
}

// After the create with `--stream-logs`: the job's rows on stderr until it ends; a failed poll or
// Ctrl-C says so and how to go on (gcloud's words). Then the job as last read, and the exit
// status: 1 unless it SUCCEEDED.
int StreamSubmittedJob(const RestClient& rest, const std::string& project,
                       const std::string& job_id, bool stderr_is_tty, std::ostream& out,
                       std::ostream& err) {
  const std::unique_ptr<FollowSource> source = MlJobFollowSource(rest, project, job_id);
  auto followed = StreamJobLogs(
      *source, {.filters = JobLogFilters(job_id, ""), .status_line = stderr_is_tty}, err, err);
  std::optional<model::Job> job;
  if (!followed.ok()) {
    err << "Polling logs failed:\n" << followed.status().ToString() << "\n\n" << FollowUp(job_id);
  } else if (followed->end == FollowEnd::kInterrupted) {
    err << "Received keyboard interrupt.\n\n" << FollowUp(job_id);
  } else {
    job = std::move(followed->job);
  }
  if (!job) {
    auto got = MlClient(rest).GetJob(project, job_id);
    if (!got.ok()) {
      PrintApiError(err, kSubmitCommand, got.status());
      return 1;
    }
    job = *std::move(got);
  }
  out << FormatSubmittedJob(*job, LocalDate);
  return job->state == model::JobState::kSucceeded ? 0 : 1;
}

int Send(const SubmitRequest& request, const ApiTarget& target, bool stderr_is_tty,
         std::ostream& out, std::ostream& err) {
  Result<RestOptions> options = RestOptionsFor(target);
  if (!options.ok()) {
    PrintError(err, kSubmitCommand, options.status().message());
    return 1;
  }
  auto rest = RestClient::ForUrl(target.server, *options);
  if (!rest.ok()) {
    PrintError(err, kSubmitCommand, rest.status().message());
    return 1;
  }
  if (!request.packages.uploads.empty()) {
    const StorageClient storage(*ParseServerUrl(target.server), *options);
    for (const PackageUpload& upload : request.packages.uploads) {
      const Status uploaded = storage.Upload(upload.local_path, upload.destination);
      if (uploaded.code() == Code::kUnavailable || uploaded.code() == Code::kDeadlineExceeded) {
        PrintApiError(err, kSubmitCommand, uploaded);  // as every call that reaches no server
        return 1;
      }
      if (!uploaded.ok()) {  // gcloud's upload messages stand alone
        PrintError(err, kSubmitCommand, uploaded.message());
        return 1;
      }
    }
  }
  auto job = MlClient(*rest).CreateJob(request.project, request.job, request.explicit_fields);
  if (!job.ok()) {
    PrintCreateError(err, kSubmitCommand, request.project, job.status());
    return 1;
  }
  err << "Job [" << job->job_id << "] submitted successfully.\n";
  if (request.flags.stream_logs) {
    return StreamSubmittedJob(*rest, request.project, job->job_id, stderr_is_tty, out, err);
  }
  err << FollowUp(job->job_id);
  out << FormatSubmittedJob(*job, LocalDate);
  return 0;
}

}  // namespace

int RunSubmitTraining(const RawTrainingFlags& raw, bool dry_run, const ApiTarget& target,
                      const catalog::Catalog& catalog, bool stderr_is_tty, std::ostream& out,
                      std::ostream& err) {
  auto request = RequestBuilder(catalog).Build(raw);
  if (!request.ok()) {
    PrintError(err, kSubmitCommand, request.status().message());
    return 1;
  }
  if (request->flags.async) {
    err << "WARNING: The --async flag is deprecated, as the default behavior is to submit the "
           "job asynchronously; it can be omitted. For synchronous behavior, please pass "
           "--stream-logs.\n";
  }
  return dry_run ? PrintDryRun(*request, catalog, out, err)
                 : Send(*request, target, stderr_is_tty, out, err);
}

int RunValidate(const RawTrainingFlags& raw, const catalog::Catalog& catalog, std::ostream& out,
                std::ostream& err) {
  auto request = RequestBuilder(catalog).Build(raw);
  if (!request.ok()) {
    PrintError(err, kValidateCommand, request.status().message());
    return 1;
  }
  Status valid = validate::ValidateJob(request->job, catalog);
  if (valid.ok()) {
    out << "Job request is valid.\n";
    return 0;
  }
  PrintViolations(out, valid);
  PrintError(err, kValidateCommand, "The job request is invalid (" + Problems(valid) + ").");
  return 1;
}

}  // namespace trainyard::cli
