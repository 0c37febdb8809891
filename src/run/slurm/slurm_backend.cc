#include "run/slurm/slurm_backend.h"

#include <algorithm>
#include <array>
#include <map>
#include <span>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "base/text.h"
#include "run/command.h"
#include "run/slurm/batch_script.h"
#include "run/slurm/slurm_status.h"

namespace trainyard::run::slurm {
namespace {

// What a Slurm client prints when it did not get an answer from slurmctld (or could not
// authenticate): the manager cannot be reached, which is not the job's fault.
constexpr std::array<std::string_view, 7> kUnreachable = {
    "Unable to contact slurm controller",
    "Socket timed out",
    "Zero Bytes were transmitted or received",
    "Communication connection failure",
    "backup controller in standby mode",
    "Munge",
    "authentication",
};

// What scancel says of a job that has already ended, or that Slurm no longer knows.
constexpr std::array<std::string_view, 2> kAlreadyEnded = {
    "already completing or completed",
    "Invalid job id specified",
};

bool ContainsAny(std::string_view text, std::span<const std::string_view> phrases) {
  return std::ranges::any_of(phrases,
                             [text](std::string_view p) { return text.find(p) != text.npos; });
}

// Slurm's own words from a client's stderr: its lines, without the "sbatch: error: " prefixes,
// joined with "; ".
std::string SlurmMessage(std::string_view err) {
  std::string message;
  while (!err.empty()) {
    const std::size_t end = std::min(err.find('\n'), err.size());
    std::string_view line = TrimWhitespace(err.substr(0, end));
    err.remove_prefix(std::min(end + 1, err.size()));
    if (const std::size_t mark = line.find(": error: "); mark != std::string_view::npos) {
      line = TrimWhitespace(line.substr(mark + 9));
    }
    if (!line.empty()) {
      message += message.empty() ? "" : "; ";
      message += line;
    }
  }
  return message;
}

// A Slurm job id as sbatch prints it: digits.
bool IsJobId(std::string_view id) {
  return !id.empty() && id.size() <= 20 &&
         std::ranges::all_of(id, [](char c) { return c >= '0' && c <= '9'; });
}

std::string Joined(const std::vector<std::string>& argv) {
  return fmt::format("{}", fmt::join(argv, " "));
}

// Runs a Slurm client: INTERNAL when it cannot be run or outlives `timeout`.
Result<CommandResult> RunClient(const std::vector<std::string>& argv, const std::string& input,
                                std::chrono::milliseconds timeout) {
  Result<CommandResult> result = RunCommand(argv, input, timeout);
  if (!result.ok()) {
    return Status::Internal(
        fmt::format("Cannot ask Slurm (`{}`): {}", Joined(argv), result.status().message()));
  }
  return result;
}

Status ClientFailed(const std::vector<std::string>& argv, const CommandResult& result) {
  std::string message = SlurmMessage(result.err);
  return Status::Internal(fmt::format("`{}` {}{}{}", Joined(argv), result.status.Describe(),
                                      message.empty() ? "" : ": ", message));
}

// The rows of each job, latest last; of a component listed twice (jobcomp/filetxt keeps one line
// per end of a requeued job) the last row.
std::vector<SlurmJobRow> LastRowPerComponent(std::vector<SlurmJobRow> rows) {
  std::map<std::pair<std::string, int>, std::size_t> last;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    last[{rows[i].job_id, rows[i].het_offset}] = i;
  }
  std::vector<SlurmJobRow> kept;
  kept.reserve(last.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (last.at({rows[i].job_id, rows[i].het_offset}) == i) {
      kept.push_back(std::move(rows[i]));
    }
  }
  return kept;
}

}  // namespace

SlurmBackend::SlurmBackend(SlurmConfig config, std::chrono::milliseconds command_timeout)
    : config_(std::move(config)), command_timeout_(command_timeout) {}

Result<std::string> SlurmBackend::Submit(const ClusterJobRequest& request) {
  Result<std::string> script = RenderBatchScript(request, config_);
  if (!script.ok()) {
    return script.status();
  }
  const std::vector<std::string> argv = {"sbatch", "--parsable"};
  Result<CommandResult> result = RunClient(argv, *script, command_timeout_);
  if (!result.ok()) {
    return result.status();
  }
  if (!result->status.Succeeded()) {
    if (ContainsAny(result->err, kUnreachable)) {
      return ClientFailed(argv, *result);
    }
    std::string message = SlurmMessage(result->err);
    return Status::FailedPrecondition(
        fmt::format("Slurm refused the job: {}",
                    message.empty() ? "sbatch " + result->status.Describe() : message));
  }
  // "123" or "123;cluster", on the first line.
  std::string_view answer = TrimWhitespace(result->out);
  answer = TrimWhitespace(
      answer.substr(0, std::min({answer.find('\n'), answer.find(';'), answer.size()})));
  if (!IsJobId(answer)) {
    return Status::Internal(fmt::format("`{}` printed no job id: \"{}\"", Joined(argv),
                                        TrimWhitespace(result->out).substr(0, 200)));
  }
  return std::string(answer);
}

Status SlurmBackend::Cancel(const std::string& id) {
  if (!IsJobId(id)) {
    return Status::InvalidArgument(fmt::format("\"{}\" is not a Slurm job id", id));
  }
  const std::vector<std::string> argv = {"scancel", id};
  Result<CommandResult> result = RunClient(argv, "", command_timeout_);
  if (!result.ok()) {
    return result.status();
  }
  if (!result->status.Succeeded() && !ContainsAny(result->err, kAlreadyEnded)) {
    return ClientFailed(argv, *result);
  }
  return {};
}

Result<std::map<std::string, ClusterJobState>> SlurmBackend::Query(
    const std::vector<std::string>& ids) {
  std::map<std::string, ClusterJobState> states;
  if (ids.empty()) {
    return states;
  }
  const std::vector<std::string> squeue = {"squeue", "--json"};
  Result<CommandResult> listed = RunClient(squeue, "", command_timeout_);
  if (!listed.ok()) {
    return listed.status();
  }
  if (!listed->status.Succeeded()) {
    return ClientFailed(squeue, *listed);
  }
  Result<std::vector<SlurmJobRow>> rows = ParseSqueueJson(listed->out);
  if (!rows.ok()) {
    return Status::Internal(
        fmt::format("Cannot read `squeue --json`'s answer: {}", rows.status().message()));
  }
  std::vector<std::string> forgotten;  // known ids squeue no longer shows, each once
  for (const std::string& id : ids) {
    ClusterJobState state = CombineRows(id, *rows);
    state.id = id;
    if (state.phase == ClusterJobState::Phase::kUnknown && IsJobId(id) &&
        std::ranges::find(forgotten, id) == forgotten.end()) {
      forgotten.push_back(id);
    }
    states[id] = std::move(state);
  }
  if (forgotten.empty() || config_.finished_jobs == FinishedJobs::kNone) {
    return states;
  }

  std::vector<std::string> sacct = {"sacct"};
  if (config_.finished_jobs == FinishedJobs::kJobcomp) {
    sacct.emplace_back("-c");  // jobcomp/filetxt: a het job's components read as plain jobs
  }
  sacct.insert(sacct.end(), {"-P", "-n", "-o", "JobID,State,ExitCode,Reason", "-j",
                             fmt::format("{}", fmt::join(forgotten, ","))});
  Result<CommandResult> accounted = RunClient(sacct, "", command_timeout_);
  if (!accounted.ok()) {
    return accounted.status();
  }
  if (!accounted->status.Succeeded()) {
    return ClientFailed(sacct, *accounted);
  }
  Result<std::vector<SlurmJobRow>> finished = ParseSacctText(accounted->out);
  if (!finished.ok()) {
    return Status::Internal(
        fmt::format("Cannot read `{}`'s answer: {}", Joined(sacct), finished.status().message()));
  }
  const std::vector<SlurmJobRow> latest = LastRowPerComponent(std::move(*finished));
  for (const std::string& id : forgotten) {
    ClusterJobState state = CombineRows(id, latest);
    state.id = id;
    states[id] = std::move(state);
  }
  return states;
}

}  // namespace trainyard::run::slurm
