#include "cli/commands/request_builder.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/config_file.h"

namespace trainyard::cli {
namespace {

// The `--config` file as a Job; an empty document is an empty Job, as in gcloud.
Result<model::Job> LoadConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::InvalidArgument(
        fmt::format("Failed to load YAML from [{}]: Unable to read file [{}]: {}", path, path,
                    std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return Status::InvalidArgument(
        fmt::format("Failed to load YAML from [{}]: Unable to read file [{}]", path, path));
  }
  if (text.str().find_first_not_of(" \t\r\n") == std::string::npos) {
    return model::Job{};
  }
  auto job = model::ParseConfigText(text.str(), path);
  if (job.ok()) {
    return job;
  }
  std::vector<std::string> problems;
  for (const FieldViolation& violation : job.status().violations()) {
    problems.push_back(violation.field.empty()
                           ? violation.description
                           : fmt::format("{}: {}", violation.field, violation.description));
  }
  if (problems.empty()) {
    problems.push_back(job.status().message());
  }
  return Status::InvalidArgument(
      fmt::format("Invalid job configuration in [{}]: {}", path, fmt::join(problems, "; ")));
}

}  // namespace

Result<SubmitRequest> RequestBuilder::Build(const RawTrainingFlags& raw) const {
  auto flags = ParseTrainingFlags(raw, catalog_);
  if (!flags.ok()) {
    return flags.status();
  }
  model::Job base;
  if (flags->config_path) {
    auto config = LoadConfig(*flags->config_path);
    if (!config.ok()) {
      return config.status();
    }
    base = *std::move(config);
  }
  // jobs_util.SubmitTraining reads compute/region with required=True, whatever the file says.
  if (!flags->region || flags->region->empty()) {
    return Status::InvalidArgument(
        "The required property [region] is not currently set. Set it with --region or the "
        "TRAINYARD_REGION environment variable.");
  }
  auto staged = StagePackages({.job_id = flags->job_id,
                               .packages = flags->packages,
                               .package_path = flags->package_path,
                               .staging_bucket = flags->staging_bucket,
                               .job_dir = flags->job_dir});
  if (!staged.ok()) {
    return staged.status();
  }
  SubmitRequest request{.project = flags->project,
                        .job = ApplyTrainingFlags(std::move(base), *flags, staged->uris),
                        .explicit_fields = ExplicitFieldsOf(*flags),
                        .packages = *std::move(staged),
                        .flags = *std::move(flags)};
  TY_RETURN_IF_ERROR(CheckHasPackages(request.job));
  return request;
}

}  // namespace trainyard::cli
