#include "cli/commands/vertex_tree.h"

#include <array>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/commands/jobs_tree.h"
#include "cli/commands/vertex_commands.h"

namespace trainyard::cli {
namespace {

constexpr const char* kRegionHelp =
    "Region of the job, e.g. us-central1 (default: $TRAINYARD_REGION).";

// The verbs both groups have, for one group.
struct GroupVerbs {
  VertexKind kind = VertexKind::kCustomJob;
  std::optional<std::string> region;  // shared by the group's verbs: only one is parsed
  CLI::App* describe = nullptr;
  TargetFlags describe_target;
  std::string describe_job;
  CLI::App* list = nullptr;
  TargetFlags list_target;
  ListFlags list_flags;
  CLI::App* cancel = nullptr;
  TargetFlags cancel_target;
  std::string cancel_job;
  CLI::App* stream_logs = nullptr;
  TargetFlags stream_logs_target;
  std::string stream_logs_job;
  StreamLogsFlags stream_logs_flags;
};

void AddCommonCreateFlags(CLI::App& create, VertexCommonFlags& flags, const std::string& what) {
  AddValueFlag(create, "--display-name", flags.display_name, "Display name of the " + what + ".");
  create.get_option("--display-name")->required();
  AddRepeatedFlag(create, "--labels", flags.labels, "Labels KEY=VALUE,...; may be repeated.");
  AddValueFlag(create, "--service-account", flags.service_account,
               "The service account the " + what + " runs as (an e-mail address or unique id).");
  AddValueFlag(create, "--network", flags.network,
               "The network the " + what + "'s machines are peered with.");
  create.add_flag("--enable-web-access", flags.enable_web_access,
                  "Ask for interactive shells on the " + what + "'s containers.");
  create.add_flag("--enable-dashboard-access", flags.enable_dashboard_access,
                  "Ask for access to a dashboard built on the " + what + "'s containers.");
}

void AddGroupVerbs(CLI::App& group, GroupVerbs& v, const std::string& what) {
  v.describe = group.add_subcommand("describe", "Describe a " + what + " (as YAML).");
  v.describe->add_option("job", v.describe_job, "ID or full name of the " + what + ".")->required();
  AddValueFlag(*v.describe, "--region", v.region, kRegionHelp);
  v.describe_target.AddTo(*v.describe);

  v.list = group.add_subcommand("list", "List the " + what + "s of a region.");
  AddValueFlag(*v.list, "--region", v.region, kRegionHelp);
  AddValueFlag(*v.list, "--filter", v.list_flags.filter,
               "Only jobs matching EXPR. Unlike gcloud, which filters on the client, trainyard "
               "sends EXPR to the server, which filters.");
  AddValueFlag(*v.list, "--limit", v.list_flags.limit, "List at most N jobs.");
  v.list_target.AddTo(*v.list);

  v.cancel = group.add_subcommand(
      "cancel", "Cancel a " + what + ". A job that has already finished is left as it is.");
  v.cancel->add_option("job", v.cancel_job, "ID or full name of the " + what + ".")->required();
  AddValueFlag(*v.cancel, "--region", v.region, kRegionHelp);
  v.cancel_target.AddTo(*v.cancel);

  v.stream_logs = group.add_subcommand(
      "stream-logs", "Show the logs of a " + what + ", following them until it has ended.");
  v.stream_logs->add_option("job", v.stream_logs_job, "ID or full name of the " + what + ".")
      ->required();
  AddValueFlag(*v.stream_logs, "--region", v.region, kRegionHelp);
  AddValueFlag(*v.stream_logs, "--task-name", v.stream_logs_flags.task_name,
               "Only the logs of this task (e.g. workerpool0-0).");
  AddValueFlag(*v.stream_logs, "--polling-interval", v.stream_logs_flags.polling_interval,
               "Seconds between two requests for new log entries (default 1).");
  v.stream_logs->add_flag("--allow-multiline-logs", v.stream_logs_flags.allow_multiline_logs,
                          "Print a multi-line log message as one record.");
  v.stream_logs_target.AddTo(*v.stream_logs);
}

}  // namespace

struct VertexTree::Verbs {
  GroupVerbs custom{.kind = VertexKind::kCustomJob};
  GroupVerbs tuning{.kind = VertexKind::kHpTuningJob};

  CLI::App* custom_create = nullptr;
  TargetFlags custom_create_target;
  CustomJobFlags custom_flags;
  std::optional<std::string> custom_config;

  CLI::App* tuning_create = nullptr;
  TargetFlags tuning_create_target;
  HpTuningJobFlags tuning_flags;
  std::optional<std::string> tuning_config;
};

VertexTree::VertexTree(CLI::App& app) : verbs_(std::make_unique<Verbs>()) {
  Verbs& v = *verbs_;
  CLI::App* ai = app.add_subcommand(
      "ai", "Vertex AI custom training: custom jobs and hyperparameter tuning jobs.");
  ai->require_subcommand(1);

  CLI::App* custom = ai->add_subcommand("custom-jobs", "Create and manage Vertex AI custom jobs.");
  custom->require_subcommand(1);
  v.custom_create = custom->add_subcommand("create", "Create a custom job and start it.");
  CLI::App& create = *v.custom_create;
  AddValueFlag(create, "--region", v.custom.region, kRegionHelp);
  AddCommonCreateFlags(create, v.custom_flags.common, "custom job");
  AddRepeatedFlag(
      create, "--worker-pool-spec", v.custom_flags.worker_pool_specs,
      "A worker pool, KEY=VALUE,... with machine-type, replica-count, "
      "accelerator-type, accelerator-count and either container-image-uri or "
      "executor-image-uri and python-module; the i-th flag is pool i (0: the chief, "
      "1: workers, 2: parameter servers, 3: evaluators), an empty value an empty pool.");
  AddValueFlag(create, "--config", v.custom_config,
               "YAML (or JSON) file holding a CustomJobSpec (workerPoolSpecs, "
               "baseOutputDirectory, scheduling, …); flags win over it.");
  AddRepeatedFlag(create, "--args", v.custom_flags.args,
                  "Arguments ARG,... for every pool's program; may be repeated.");
  AddRepeatedFlag(create, "--command", v.custom_flags.command,
                  "The command COMMAND,... every container pool runs instead of its image's "
                  "entrypoint; may be repeated.");
  AddRepeatedFlag(create, "--python-package-uris", v.custom_flags.python_package_uris,
                  "Python packages URI,... (gs://…) the python-module pools of --worker-pool-spec "
                  "install; the last one given counts.");
  v.custom_create_target.AddTo(create);
  AddGroupVerbs(*custom, v.custom, "custom job");

  CLI::App* tuning = ai->add_subcommand("hp-tuning-jobs",
                                        "Create and manage Vertex AI hyperparameter tuning jobs.");
  tuning->require_subcommand(1);
  v.tuning_create = tuning->add_subcommand("create", "Create a hyperparameter tuning job.");
  CLI::App& study = *v.tuning_create;
  AddValueFlag(study, "--region", v.tuning.region, kRegionHelp);
  AddCommonCreateFlags(study, v.tuning_flags.common, "hyperparameter tuning job");
  AddValueFlag(study, "--config", v.tuning_config,
               "YAML (or JSON) file holding a HyperparameterTuningJob: studySpec and "
               "trialJobSpec, and optionally the counts.");
  study.get_option("--config")->required();
  AddValueFlag(study, "--max-trial-count", v.tuning_flags.max_trial_count,
               "Trials in all (default: the file's, else 1).");
  AddValueFlag(study, "--parallel-trial-count", v.tuning_flags.parallel_trial_count,
               "Trials at once (default: the file's, else 1).");
  AddValueFlag(study, "--max-failed-trial-count", v.tuning_flags.max_failed_trial_count,
               "Failed trials after which the job fails (trainyard's; gcloud has no such flag).");
  AddValueFlag(study, "--algorithm", v.tuning_flags.algorithm,
               "The study's search algorithm: algorithm-unspecified (Bayesian), grid-search or "
               "random-search.");
  v.tuning_create_target.AddTo(study);
  AddGroupVerbs(*tuning, v.tuning, "hyperparameter tuning job");
}

VertexTree::~VertexTree() = default;

std::optional<int> VertexTree::Run(const Environment& env,
                                   const std::optional<std::vector<std::string>>& user_args,
                                   std::ostream& out, std::ostream& err) {
  Verbs& v = *verbs_;
  const auto target = [&](const TargetFlags& flags, const GroupVerbs& group) {
    return VertexTarget{.api = flags.Resolve(env),
                        .region = group.region ? group.region : env.region};
  };
  const std::array<CLI::App*, 2> creates = {v.custom_create, v.tuning_create};
  const std::array<GroupVerbs*, 2> groups = {&v.custom, &v.tuning};
  std::optional<std::string> chosen;
  for (CLI::App* verb : creates) {
    if (verb->parsed()) {
      chosen = verb->get_parent()->get_name() + "." + verb->get_name();
    }
  }
  for (const GroupVerbs* group : groups) {
    for (CLI::App* verb : {group->describe, group->list, group->cancel, group->stream_logs}) {
      if (verb->parsed()) {
        chosen = verb->get_parent()->get_name() + "." + verb->get_name();
      }
    }
  }
  if (!chosen) {
    return std::nullopt;
  }
  if (user_args) {
    err << "ERROR: (trainyard.ai." << *chosen << ") unrecognized arguments after `--`\n";
    return 2;
  }
  if (v.custom_create->parsed()) {
    return RunCustomJobCreate(target(v.custom_create_target, v.custom), v.custom_flags,
                              v.custom_config, err);
  }
  if (v.tuning_create->parsed()) {
    return RunHpTuningJobCreate(target(v.tuning_create_target, v.tuning), v.tuning_flags,
                                v.tuning_config.value_or(""), err);
  }
  for (const GroupVerbs* group : groups) {
    const GroupVerbs& g = *group;
    if (g.describe->parsed()) {
      return RunVertexDescribe(target(g.describe_target, g), g.kind, g.describe_job, out, err);
    }
    if (g.list->parsed()) {
      return RunVertexList(target(g.list_target, g), g.kind, g.list_flags, out, err);
    }
    if (g.cancel->parsed()) {
      return RunVertexCancel(target(g.cancel_target, g), g.kind, g.cancel_job, err);
    }
    if (g.stream_logs->parsed()) {
      return RunVertexStreamLogs(target(g.stream_logs_target, g), g.kind, g.stream_logs_job,
                                 g.stream_logs_flags, env.stderr_is_tty, out, err);
    }
  }
  return std::nullopt;
}

}  // namespace trainyard::cli
