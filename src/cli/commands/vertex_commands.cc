#include "cli/commands/vertex_commands.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/follow/job_log_stream.h"
#include "cli/follow/log_query.h"
#include "cli/output/error_output.h"
#include "cli/output/yaml_printer.h"
#include "os/file.h"

namespace trainyard::cli {
namespace {

using nlohmann::json;

// "trainyard.ai.custom-jobs.describe".
std::string Command(VertexKind kind, std::string_view verb) {
  return fmt::format("trainyard.ai.{}.{}",
                     kind == VertexKind::kCustomJob ? "custom-jobs" : "hp-tuning-jobs", verb);
}

// The region a create or list goes to; nullopt after printing gcloud's words when there is none.
std::optional<std::string> Region(const VertexTarget& target, std::string_view command,
                                  std::ostream& err) {
  if (target.region && !target.region->empty()) {
    return target.region;
  }
  PrintError(err, command,
             "Error parsing [region].\nThe [region] resource is not properly specified.\nFailed "
             "to find attribute [region]. The attribute can be set in the following ways: \n- "
             "provide the argument `--region` on the command line\n- set the environment "
             "variable `TRAINYARD_REGION`");
  return std::nullopt;
}

std::optional<VertexJobName> JobName(const VertexTarget& target, VertexKind kind,
                                     const std::string& job, std::string_view command,
                                     std::ostream& err) {
  auto name = ParseVertexJobName(job, kind, target.api.project, target.region);
  if (!name.ok()) {
    PrintError(err, command, name.status().message());
    return std::nullopt;
  }
  return *std::move(name);
}

// gcloud's `Unable to read file` for a `--config` that cannot be read.
std::optional<std::string> ReadConfig(const std::string& path, std::string_view command,
                                      std::ostream& err) {
  std::optional<std::string> text = os::ReadFileText(path);
  if (!text) {
    const int error = errno;
    PrintError(err, command,
               fmt::format("Unable to read file [{0}]: [Errno {1}] {2}: '{0}'", path, error,
                           std::strerror(error)));
  }
  return text;
}

// The job as gcloud's `yaml` format prints a whole resource.
std::string Yaml(const json& job) {
  auto text = FormatYaml(job.dump(-1, ' ', false, json::error_handler_t::replace));
  return text.ok() ? *text : std::string();
}

// The created job's id: the last segment of its name.
std::string IdOf(const json& job) {
  const std::string name = StringField(job, "name");
  return name.substr(name.rfind('/') + 1);
}

int Create(const VertexTarget& target, VertexKind kind, const Result<std::string>& body,
           std::string_view command, std::ostream& err, json& created) {
  if (!body.ok()) {
    PrintError(err, command, body.status().message());
    return 1;
  }
  const std::optional<std::string> region = Region(target, command, err);
  if (!region) {
    return 1;
  }
  const std::optional<RestClient> rest = Connect(target.api, command, err);
  if (!rest) {
    return 1;
  }
  auto job = VertexClient(*rest, kind).Create(target.api.project, *region, *body);
  if (!job.ok()) {
    PrintCreateError(err, command, target.api.project, job.status());
    return 1;
  }
  created = *std::move(job);
  return 0;
}

}  // namespace

int RunCustomJobCreate(const VertexTarget& target, const CustomJobFlags& flags,
                       const std::optional<std::string>& config_path, std::ostream& err) {
  const std::string command = Command(VertexKind::kCustomJob, "create");
  std::optional<std::string> config_text;
  if (config_path) {
    config_text = ReadConfig(*config_path, command, err);
    if (!config_text) {
      return 1;
    }
  }
  json job;
  if (int rc = Create(target, VertexKind::kCustomJob,
                      CustomJobRequestBody(flags, config_text, config_path.value_or("")), command,
                      err, job);
      rc != 0) {
    return rc;
  }
  const std::string name = StringField(job, "name");
  err << fmt::format(
      "CustomJob [{0}] is submitted successfully.\n\nYour job is still active. You may view the "
      "status of your job with the command\n\n  $ trainyard ai custom-jobs describe {0}\n\nor "
      "continue streaming the logs with the command\n\n  $ trainyard ai custom-jobs stream-logs "
      "{0}\n",
      name);
  return 0;
}

int RunHpTuningJobCreate(const VertexTarget& target, const HpTuningJobFlags& flags,
                         const std::string& config_path, std::ostream& err) {
  const std::string command = Command(VertexKind::kHpTuningJob, "create");
  const std::optional<std::string> config_text = ReadConfig(config_path, command, err);
  if (!config_text) {
    return 1;
  }
  json job;
  if (int rc = Create(target, VertexKind::kHpTuningJob,
                      HpTuningJobRequestBody(flags, *config_text, config_path), command, err, job);
      rc != 0) {
    return rc;
  }
  err << fmt::format(
      "Hyperparameter tuning job [{0}] submitted successfully.\n\nYour job is still active. You "
      "may view the status of your job with the command\n\n  $ trainyard ai hp-tuning-jobs "
      "describe {0} --region={1}\n\nJob State: {2}\n",
      IdOf(job), target.region.value_or(""), StringField(job, "state"));
  return 0;
}

int RunVertexDescribe(const VertexTarget& target, VertexKind kind, const std::string& job,
                      std::ostream& out, std::ostream& err) {
  const std::string command = Command(kind, "describe");
  const std::optional<VertexJobName> name = JobName(target, kind, job, command, err);
  if (!name) {
    return 1;
  }
  const std::optional<RestClient> rest = Connect(target.api, command, err);
  if (!rest) {
    return 1;
  }
  auto got = VertexClient(*rest, kind).Get(*name);
  if (!got.ok()) {
    PrintApiError(err, command, got.status());
    return 1;
  }
  out << Yaml(*got);
  return 0;
}

int RunVertexList(const VertexTarget& target, VertexKind kind, const ListFlags& flags,
                  std::ostream& out, std::ostream& err) {
  const std::string command = Command(kind, "list");
  const std::optional<std::int64_t> limit =
      PositiveFlag(flags.limit, "--limit", std::numeric_limits<std::int64_t>::max(), command, err);
  if (!limit) {
    return 1;
  }
  const std::optional<std::string> region = Region(target, command, err);
  if (!region) {
    return 1;
  }
  const std::optional<RestClient> rest = Connect(target.api, command, err);
  if (!rest) {
    return 1;
  }
  const VertexClient vertex(*rest, kind);
  // gcloud asks for 100 a page whatever --limit says, and stops reading at the limit.
  const Result<std::vector<json>> jobs = ReadPages<json>(*limit, [&](const std::string& token) {
    return vertex.List(
        target.api.project, *region,
        VertexListQuery{
            .page_size = 100, .page_token = token, .filter = flags.filter.value_or("")});
  });
  if (!jobs.ok()) {
    PrintApiError(err, command, jobs.status());
    return 1;
  }
  if (jobs->empty()) {
    err << "Listed 0 items.\n";
    return 0;
  }
  for (const json& job : *jobs) {
    out << "---\n" << Yaml(job);
  }
  return 0;
}

int RunVertexCancel(const VertexTarget& target, VertexKind kind, const std::string& job,
                    std::ostream& err) {
  const std::string command = Command(kind, "cancel");
  const std::optional<VertexJobName> name = JobName(target, kind, job, command, err);
  if (!name) {
    return 1;
  }
  const std::optional<RestClient> rest = Connect(target.api, command, err);
  if (!rest) {
    return 1;
  }
  if (Status status = VertexClient(*rest, kind).Cancel(*name); !status.ok()) {
    PrintApiError(err, command, status);
    return 1;
  }
  const std::string follow_up =
      kind == VertexKind::kCustomJob
          ? fmt::format("trainyard ai custom-jobs describe {}", name->RelativeName(kind))
          : fmt::format("trainyard ai hp-tuning-jobs describe {} --region={}", name->id,
                        name->location);
  err << fmt::format(
      "Request to cancel {} [{}] has been sent.\n\nYou may view the status of your job with the "
      "command\n\n  $ {}\n\n",
      kind == VertexKind::kCustomJob ? "CustomJob" : "hyperparameter tuning job",
      kind == VertexKind::kCustomJob ? name->RelativeName(kind) : name->id, follow_up);
  return 0;
}

int RunVertexStreamLogs(const VertexTarget& target, VertexKind kind, const std::string& job,
                        const StreamLogsFlags& flags, bool stderr_is_tty, std::ostream& out,
                        std::ostream& err) {
  const std::string command = Command(kind, "stream-logs");
  const std::optional<VertexJobName> name = JobName(target, kind, job, command, err);
  if (!name) {
    return 1;
  }
  const LogFollowing following{
      .source = [&](const RestClient& rest) { return VertexJobFollowSource(rest, kind, *name); },
      .filters = VertexJobLogFilters(name->id, flags.task_name.value_or("")),
      .trial_column = false,
  };
  return RunLogStream(command, target.api, following, flags, stderr_is_tty, out, err);
}

}  // namespace trainyard::cli
