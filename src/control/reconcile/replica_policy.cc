#include "control/reconcile/replica_policy.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace trainyard::control {

std::chrono::milliseconds RestartBackoff(int restarts, const RestartPolicy& policy) {
  std::chrono::milliseconds backoff = policy.initial_backoff;
  for (int i = 0; i < restarts && backoff < policy.max_backoff; ++i) {
    backoff *= 2;
  }
  return std::min(backoff, policy.max_backoff);
}

namespace {

// Whether a failed end (a non-zero exit or a signal) restarts the replica under `rule`.
bool RestartsAfterFailure(model::RestartRule rule, const ExitStatus& status) {
  switch (rule) {
    case model::RestartRule::kAiPlatform:
      return status.signaled;
    case model::RestartRule::kNever:
      return false;
    case model::RestartRule::kOnFailure:
    case model::RestartRule::kAlways:
      return true;
    case model::RestartRule::kExitCode:
      // The operator's IsRetryableExitCode: 128 + N is a death by signal N, retryable.
      return status.signaled || status.code >= 128;
  }
  return false;
}

// "The replica worker 1" (AI Platform's words), or "The replica workerpool1-1" (Vertex AI's).
std::string ReplicaName(const ReplicaExit& exit, const ExitRules& rules) {
  if (rules.pool_names) {
    return "The replica " + plan::VertexTaskName(exit.role, exit.index);
  }
  return fmt::format("The replica {} {}", plan::RoleName(exit.role), exit.index);
}

// A restart, if the budget has one left; else the failure that ends the job.
ExitDecision Restart(const ReplicaExit& exit, const ExitRules& rules, const RestartPolicy& policy) {
  const bool budget_left =
      !exit.final && (rules.backoff_limit ? exit.job_restarts < *rules.backoff_limit
                                          : exit.restarts < policy.max_restarts);
  if (budget_left) {
    return {rules.restart_all ? ExitDecision::Action::kRestartJob : ExitDecision::Action::kRestart,
            RestartBackoff(exit.restarts, policy),
            {}};
  }
  if (rules.backoff_limit) {
    return {ExitDecision::Action::kFail,
            {},
            fmt::format("Job {} has failed because it has reached the specified backoff limit",
                        rules.job_name)};
  }
  return {ExitDecision::Action::kFail,
          {},
          fmt::format("{} {} and was restarted {} time{}; giving up.", ReplicaName(exit, rules),
                      exit.status.Describe(), exit.restarts, exit.restarts == 1 ? "" : "s")};
}

}  // namespace

ExitRules ExitRulesOf(const std::optional<model::JobExtras>& extras, plan::Role role,
                      std::string_view job_id) {
  ExitRules rules{.job_name = std::string(job_id)};
  if (!extras) {
    return rules;
  }
  rules.restart = plan::RoleExtrasOf(*extras, role).restart;
  rules.success = extras->success;
  rules.backoff_limit = extras->backoff_limit;
  rules.restart_all = extras->restart_all_on_failure;
  rules.pool_names = extras->vertex.has_value();
  if (extras->kubeflow) {
    rules.job_name = extras->kubeflow->namespace_name + "/" + extras->kubeflow->job_name;
  }
  return rules;
}

std::string RestartMessage(std::string_view task_name, const ReplicaExit& exit,
                           const ExitDecision& decision, const ExitRules& rules,
                           const RestartPolicy& policy) {
  const bool job_budget = rules.backoff_limit.has_value();
  return fmt::format("The replica {} {}; restarting {} in {} s (restart {} of {}).", task_name,
                     exit.status.Describe(),
                     decision.action == ExitDecision::Action::kRestartJob ? "every replica" : "it",
                     std::chrono::duration<double>(decision.backoff).count(),
                     (job_budget ? exit.job_restarts : exit.restarts) + 1,
                     job_budget ? *rules.backoff_limit : policy.max_restarts);
}

ExitDecision DecideOnExit(const ReplicaExit& exit, const ExitRules& rules,
                          const RestartPolicy& policy) {
  const bool primary = exit.role == plan::Role::kMaster;
  if (exit.status.Succeeded()) {
    const bool all_workers = rules.success == model::SuccessRule::kAllWorkers;
    if (primary && (!all_workers || exit.others_succeeded)) {
      return {ExitDecision::Action::kSucceed, {}, {}};
    }
    if (all_workers && exit.role == plan::Role::kWorker && exit.others_succeeded) {
      return {ExitDecision::Action::kSucceed, {}, {}};
    }
    if (!primary && rules.restart == model::RestartRule::kAlways) {
      return Restart(exit, rules, policy);
    }
    return {};  // its part is done (or, the master under kAllWorkers, it waits for the workers)
  }
  if (RestartsAfterFailure(rules.restart, exit.status)) {
    return Restart(exit, rules, policy);
  }
  return {ExitDecision::Action::kFail,
          {},
          fmt::format("{} {}. Termination reason: Error.", ReplicaName(exit, rules),
                      exit.status.Describe())};
}

std::string WithStderrTail(std::string message, std::string_view stderr_tail, int max_lines,
                           std::size_t max_bytes) {
  const std::size_t end = stderr_tail.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) {
    return message;
  }
  std::string_view text = stderr_tail.substr(0, end + 1);
  // Walk back over `max_lines` line breaks: what follows the last of them is kept.
  std::size_t start = 0;
  std::size_t search = text.size();
  for (int lines = 0; lines < max_lines; ++lines) {
    const std::size_t newline = search == 0 ? std::string_view::npos : text.rfind('\n', search - 1);
    if (newline == std::string_view::npos) {
      start = 0;
      break;
    }
    start = newline + 1;
    search = newline;
  }
  text = text.substr(start);
  if (text.size() > max_bytes) {
    const std::size_t cut = text.size() - max_bytes;
    const bool at_line_start = text[cut - 1] == '\n';
    text = text.substr(cut);
    const std::size_t newline = text.find('\n');
    if (!at_line_start && newline != std::string_view::npos) {
      text = text.substr(newline + 1);  // drop the partial first line
    }
  }
  message += ' ';
  message += text;
  return message;
}

}  // namespace trainyard::control
