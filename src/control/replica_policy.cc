#include "control/replica_policy.h"

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

std::string RestartMessage(std::string_view task_name, const run::ExitStatus& status,
                           std::chrono::milliseconds backoff, int restarts,
                           const RestartPolicy& policy) {
  return fmt::format("The replica {} {}; restarting it in {} s (restart {} of {}).", task_name,
                     status.Describe(), std::chrono::duration<double>(backoff).count(),
                     restarts + 1, policy.max_restarts);
}

ExitDecision DecideOnExit(plan::Role role, int index, const run::ExitStatus& status, int restarts,
                          const RestartPolicy& policy) {
  const std::string replica = fmt::format("The replica {} {}", plan::RoleName(role), index);
  if (status.Succeeded()) {
    if (role == plan::Role::kMaster) {
      return {ExitDecision::Action::kSucceed, {}, {}};
    }
    return {};
  }
  if (status.signaled) {
    if (restarts < policy.max_restarts) {
      return {ExitDecision::Action::kRestart, RestartBackoff(restarts, policy), {}};
    }
    return {ExitDecision::Action::kFail,
            {},
            fmt::format("{} {} and was restarted {} time{}; giving up.", replica, status.Describe(),
                        restarts, restarts == 1 ? "" : "s")};
  }
  return {ExitDecision::Action::kFail,
          {},
          fmt::format("{} {}. Termination reason: Error.", replica, status.Describe())};
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
