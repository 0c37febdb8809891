#include "cli/commands/jobs_tree.h"

#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "cli/commands/commands.h"

namespace trainyard::cli {
namespace {

constexpr const char* kServerHelp =
    "URL of the trainyard server (default: $TRAINYARD_SERVER, else http://127.0.0.1:8470/).";
constexpr const char* kProjectHelp =
    "Project of the job (default: $TRAINYARD_PROJECT, else \"default\").";
constexpr const char* kCaFileHelp =
    "CA certificates (PEM) an https server's certificate must chain to (default: "
    "$TRAINYARD_CA_FILE, else the system's).";
constexpr const char* kTokenFileHelp =
    "File holding the access token to send, for a server with --auth tokens (default: "
    "$TRAINYARD_TOKEN).";

}  // namespace

void TargetFlags::AddTo(CLI::App& command) {
  AddValueFlag(command, "--server", server, kServerHelp);
  AddValueFlag(command, "--project", project, kProjectHelp);
  AddValueFlag(command, "--token-file", token_file, kTokenFileHelp);
  AddValueFlag(command, "--ca-file", ca_file, kCaFileHelp);
}

ApiTarget TargetFlags::Resolve(const Environment& env) const {
  return {.server = ResolveServer(server, env),
          .project = ResolveProject(project, env),
          .token_file = token_file,
          .token = env.token,
          .ca_file = ca_file.value_or(env.ca_file.value_or(""))};
}

struct JobsTree::Verbs {
  CLI::App* submit_training = nullptr;
  RawTrainingFlags submit_raw;
  std::optional<std::string> submit_project;
  std::optional<std::string> submit_server;
  std::optional<std::string> submit_token_file;
  std::optional<std::string> submit_ca_file;
  bool dry_run = false;

  CLI::App* validate = nullptr;
  RawTrainingFlags validate_raw;
  std::optional<std::string> validate_project;

  CLI::App* describe = nullptr;
  TargetFlags describe_target;
  std::string describe_job;
  std::string format = "yaml";

  CLI::App* list = nullptr;
  TargetFlags list_target;
  ListFlags list_flags;

  CLI::App* cancel = nullptr;
  TargetFlags cancel_target;
  std::string cancel_job;

  CLI::App* suspend = nullptr;
  TargetFlags suspend_target;
  std::string suspend_job;

  CLI::App* resume = nullptr;
  TargetFlags resume_target;
  std::string resume_job;

  CLI::App* stream_logs = nullptr;
  TargetFlags stream_logs_target;
  std::string stream_logs_job;
  StreamLogsFlags stream_logs_flags;

  CLI::App* export_job = nullptr;
  TargetFlags export_target;
  std::string export_id;
  std::string export_format = "tfjob";

  CLI::App* update = nullptr;
  TargetFlags update_target;
  std::string update_job;
  UpdateFlags update_flags;
};

JobsTree::JobsTree(CLI::App& app) : verbs_(std::make_unique<Verbs>()) {
  Verbs& v = *verbs_;
  CLI::App* jobs = app.add_subcommand(
      "jobs",
      "Submit, list, describe, update, suspend, resume and cancel jobs, and follow their logs.");
  jobs->require_subcommand(1);

  CLI::App* submit = jobs->add_subcommand("submit", "Submit jobs.");
  submit->require_subcommand(1);
  v.submit_training = submit->add_subcommand("training", "Submit a training job.");
  AddTrainingFlags(*v.submit_training, v.submit_raw, v.submit_project);
  AddValueFlag(*v.submit_training, "--server", v.submit_server, kServerHelp);
  AddValueFlag(*v.submit_training, "--token-file", v.submit_token_file, kTokenFileHelp);
  AddValueFlag(*v.submit_training, "--ca-file", v.submit_ca_file, kCaFileHelp);
  v.submit_training->add_flag(
      "--dry-run", v.dry_run,
      "Check the request offline and print the JSON body of the create request instead of "
      "sending it.");

  v.validate = jobs->add_subcommand(
      "validate", "Check a training job request offline, with the flags of `submit training`.");
  AddTrainingFlags(*v.validate, v.validate_raw, v.validate_project);

  v.describe = jobs->add_subcommand("describe", "Describe a job.");
  v.describe->add_option("job", v.describe_job, "ID of the job.")->required();
  v.describe->add_option("--format", v.format,
                         "yaml (default: the whole resource, as gcloud prints it) or json.");
  v.describe_target.AddTo(*v.describe);

  v.list = jobs->add_subcommand("list", "List jobs, newest first.");
  AddValueFlag(*v.list, "--filter", v.list_flags.filter,
               "Only jobs matching EXPR, e.g. 'jobId:census* AND state:FAILED' (fields jobId, "
               "state, createTime, startTime, endTime, errorMessage, labels.KEY, "
               "trainingInput.region, …). Unlike gcloud, which filters on the client, trainyard "
               "sends EXPR to the server, which filters.");
  AddValueFlag(*v.list, "--limit", v.list_flags.limit, "List at most N jobs.");
  AddValueFlag(*v.list, "--page-size", v.list_flags.page_size,
               "Jobs asked for per request (default and maximum 100).");
  v.list_target.AddTo(*v.list);

  v.cancel = jobs->add_subcommand(
      "cancel", "Cancel a job. A job that has already finished cannot be cancelled.");
  v.cancel->add_option("job", v.cancel_job, "ID of the job.")->required();
  v.cancel_target.AddTo(*v.cancel);

  v.suspend = jobs->add_subcommand(
      "suspend",
      "Suspend a job: a running job's replicas are stopped and it goes back to the queue "
      "(QUEUED), where it waits until resumed. A job that has ended cannot be suspended.");
  v.suspend->add_option("job", v.suspend_job, "ID of the job.")->required();
  v.suspend_target.AddTo(*v.suspend);

  v.resume = jobs->add_subcommand(
      "resume", "Resume a suspended job: it waits in the queue and starts when there is room.");
  v.resume->add_option("job", v.resume_job, "ID of the job.")->required();
  v.resume_target.AddTo(*v.resume);

  v.stream_logs = jobs->add_subcommand(
      "stream-logs", "Show the logs of a job, following them until the job has ended.");
  v.stream_logs->add_option("job", v.stream_logs_job, "ID of the job.")->required();
  AddValueFlag(*v.stream_logs, "--task-name", v.stream_logs_flags.task_name,
               "Only the logs of this task (e.g. worker-replica-1, service).");
  AddValueFlag(*v.stream_logs, "--polling-interval", v.stream_logs_flags.polling_interval,
               "Seconds between two requests for new log entries (default 1).");
  v.stream_logs->add_flag("--allow-multiline-logs", v.stream_logs_flags.allow_multiline_logs,
                          "Print a multi-line log message as one record.");
  v.stream_logs_target.AddTo(*v.stream_logs);

  v.export_job = jobs->add_subcommand(
      "export",
      "Print a job as a manifest for another system: a Kubeflow TFJob (kubeflow.org/v1).");
  v.export_job->add_option("job", v.export_id, "ID of the job.")->required();
  v.export_job->add_option("--format", v.export_format, "tfjob (the default and only format).");
  v.export_target.AddTo(*v.export_job);

  v.update = jobs->add_subcommand("update", "Update a job's labels.");
  v.update->add_option("job", v.update_job, "ID of the job.")->required();
  AddRepeatedFlag(*v.update, "--update-labels", v.update_flags.update_labels,
                  "Labels KEY=VALUE,... to add or change; may be repeated.");
  AddRepeatedFlag(*v.update, "--remove-labels", v.update_flags.remove_labels,
                  "Label keys KEY,... to remove (after --update-labels); may be repeated.");
  v.update->add_flag("--clear-labels", v.update_flags.clear_labels,
                     "Remove all labels (before --update-labels).");
  v.update_target.AddTo(*v.update);
}

JobsTree::~JobsTree() = default;

std::optional<int> JobsTree::Run(const Environment& env,
                                 const std::optional<std::vector<std::string>>& user_args,
                                 const catalog::Catalog& catalog, std::ostream& out,
                                 std::ostream& err) {
  Verbs& v = *verbs_;
  auto finish = [&](RawTrainingFlags& raw, const std::optional<std::string>& project) {
    raw.project = ResolveProject(project, env);
    if (!raw.region) {
      raw.region = env.region;
    }
    raw.user_args = user_args;
  };
  if (v.submit_training->parsed()) {
    finish(v.submit_raw, v.submit_project);
    const ApiTarget target{.server = ResolveServer(v.submit_server, env),
                           .project = v.submit_raw.project,
                           .token_file = v.submit_token_file,
                           .token = env.token,
                           .ca_file = v.submit_ca_file.value_or(env.ca_file.value_or(""))};
    return RunSubmitTraining(v.submit_raw, v.dry_run, target, catalog, env.stderr_is_tty, out, err);
  }
  if (v.validate->parsed()) {
    finish(v.validate_raw, v.validate_project);
    return RunValidate(v.validate_raw, catalog, out, err);
  }
  const bool api_verb = v.describe->parsed() || v.list->parsed() || v.cancel->parsed() ||
                        v.suspend->parsed() || v.resume->parsed() || v.stream_logs->parsed() ||
                        v.update->parsed() || v.export_job->parsed();
  if (!api_verb) {
    return std::nullopt;
  }
  if (user_args) {
    for (const CLI::App* verb : {v.describe, v.list, v.cancel, v.suspend, v.resume, v.stream_logs,
                                 v.update, v.export_job}) {
      if (verb->parsed()) {
        err << "ERROR: (trainyard.jobs." << verb->get_name()
            << ") unrecognized arguments after `--`\n";
      }
    }
    return 2;
  }
  if (v.describe->parsed()) {
    return RunDescribe(v.describe_target.Resolve(env), v.describe_job, v.format, out, err);
  }
  if (v.export_job->parsed()) {
    return RunExport(v.export_target.Resolve(env), v.export_id, v.export_format, out, err);
  }
  if (v.list->parsed()) {
    return RunList(v.list_target.Resolve(env), v.list_flags, out, err);
  }
  if (v.cancel->parsed()) {
    return RunCancel(v.cancel_target.Resolve(env), v.cancel_job, err);
  }
  if (v.suspend->parsed() || v.resume->parsed()) {
    const bool suspend = v.suspend->parsed();
    return RunSuspend((suspend ? v.suspend_target : v.resume_target).Resolve(env),
                      suspend ? v.suspend_job : v.resume_job, suspend, err);
  }
  if (v.stream_logs->parsed()) {
    return RunStreamLogs(v.stream_logs_target.Resolve(env), v.stream_logs_job, v.stream_logs_flags,
                         env.stderr_is_tty, out, err);
  }
  return RunUpdate(v.update_target.Resolve(env), v.update_job, v.update_flags, err);
}

}  // namespace trainyard::cli
