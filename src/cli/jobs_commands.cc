// The `jobs submit training` and `jobs validate` verbs: build the request (request_builder.h),
// check it offline with validate/, then print or (once a server exists) send it.
#include <ostream>
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "cli/request_body.h"
#include "cli/request_builder.h"
#include "validate/validate.h"

namespace trainyard::cli {
namespace {

constexpr std::string_view kSubmitCommand = "trainyard.jobs.submit.training";
constexpr std::string_view kValidateCommand = "trainyard.jobs.validate";

void PrintError(std::ostream& err, std::string_view command, std::string_view message) {
  err << "ERROR: (" << command << ") " << message << "\n";
}

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

}  // namespace

int RunSubmitTraining(const RawTrainingFlags& raw, bool dry_run, const catalog::Catalog& catalog,
                      std::ostream& out, std::ostream& err) {
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
  if (Status valid = validate::ValidateJob(request->job, catalog); !valid.ok()) {
    PrintError(err, kSubmitCommand,
               "The job request is invalid (" + Problems(valid) + "); nothing was submitted:");
    PrintViolations(err, valid);
    return 1;
  }
  if (!dry_run) {
    // The REST client (a later issue) sends `request` here: the uploads, then the create.
    PrintError(err, kSubmitCommand,
               "No trainyard server is configured yet; use --dry-run to print the request "
               "instead of sending it.");
    return 1;
  }
  for (const PackageUpload& upload : request->packages.uploads) {
    err << "Would upload [" << upload.local_path.string() << "] to [" << upload.destination.Url()
        << "]\n";
  }
  err << "Would POST to /v1/projects/" << request->project << "/jobs:\n";
  out << CreateJobRequestBody(request->job, request->explicit_fields) << "\n";
  return 0;
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
