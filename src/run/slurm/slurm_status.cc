// Reading `squeue --json` and `sacct -P` text into job rows, and rows into one job state.
#include "run/slurm/slurm_status.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace trainyard::run::slurm {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxQuoted = 80;  // of a bad line or value, in messages

std::string Quoted(std::string_view text) {
  return Json(std::string(text.substr(0, kMaxQuoted)))
      .dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
}

// A squeue number: a plain non-negative integer (22.05), or the {"set": true, "number": N} object
// of later versions. nullopt when absent, unset or not a number.
std::optional<std::uint64_t> Number(const Json& job, const char* key) {
  const auto it = job.find(key);
  if (it == job.end()) {
    return std::nullopt;
  }
  const Json* value = &*it;
  if (value->is_object()) {
    const auto set = value->find("set");
    const auto number = value->find("number");
    if (set == value->end() || !set->is_boolean() || !set->get<bool>() || number == value->end()) {
      return std::nullopt;
    }
    value = &*number;
  }
  if (!value->is_number_unsigned()) {
    return std::nullopt;
  }
  return value->get<std::uint64_t>();
}

// job_state: "RUNNING" (22.05) or ["RUNNING", "COMPLETING"] (later: the base state first).
std::optional<std::string> State(const Json& job) {
  const auto it = job.find("job_state");
  if (it == job.end()) {
    return std::nullopt;
  }
  if (it->is_string()) {
    return it->get<std::string>();
  }
  if (it->is_array() && !it->empty() && it->front().is_string()) {
    return it->front().get<std::string>();
  }
  return std::nullopt;
}

Result<SlurmJobRow> SqueueRow(const Json& job, std::size_t index) {
  if (!job.is_object()) {
    return Status::InvalidArgument(fmt::format("squeue's jobs[{}] is not an object", index));
  }
  const std::optional<std::uint64_t> job_id = Number(job, "job_id");
  if (!job_id) {
    return Status::InvalidArgument(fmt::format("squeue's jobs[{}] has no job_id number", index));
  }
  std::optional<std::string> state = State(job);
  if (!state) {
    return Status::InvalidArgument(
        fmt::format("squeue's jobs[{}] (job {}) has no job_state string", index, *job_id));
  }
  SlurmJobRow row{.job_id = std::to_string(*job_id), .state = std::move(*state)};
  // A plain job has het_job_id 0 (22.05) or an unset number (later versions).
  const std::optional<std::uint64_t> het_id = Number(job, "het_job_id");
  if (het_id && *het_id != 0) {
    row.job_id = std::to_string(*het_id);
    const std::optional<std::uint64_t> offset = Number(job, "het_job_offset");
    row.het_offset = offset && *offset <= 1'000'000 ? static_cast<int>(*offset) : 0;
  }
  if (const auto reason = job.find("state_reason"); reason != job.end() && reason->is_string()) {
    row.reason = reason->get<std::string>();
  }
  return row;
}

bool IsDigits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// sacct's JobID column: "17", "17+1", "17_3", "17_[1-3%2]" (an array's pending rest), and steps
// (one of those then ".batch", ".extern", ".0"). nullopt when it is none of these.
struct SacctId {
  std::string job_id;
  int het_offset = 0;
  bool step = false;
};

std::optional<SacctId> ParseSacctId(std::string_view text) {
  SacctId id;
  if (const std::size_t dot = text.find('.'); dot != std::string_view::npos) {
    const std::string_view step = text.substr(dot + 1);
    if (step.empty() || step.find_first_of(".+_[]") != std::string_view::npos) {
      return std::nullopt;
    }
    id.step = true;
    text = text.substr(0, dot);
  }
  const std::size_t plus = text.find('+');
  const std::size_t under = text.find('_');
  if (plus != std::string_view::npos) {
    const std::string_view offset = text.substr(plus + 1);
    if (!IsDigits(text.substr(0, plus)) || !IsDigits(offset) || offset.size() > 6) {
      return std::nullopt;
    }
    id.job_id = text.substr(0, plus);
    id.het_offset = std::stoi(std::string(offset));
    return id;
  }
  if (under != std::string_view::npos) {
    const std::string_view task = text.substr(under + 1);
    const bool pending_rest = task.size() >= 2 && task.front() == '[' && task.back() == ']' &&
                              task.find_first_not_of("0123456789-,%", 1) == task.size() - 1;
    if (!IsDigits(text.substr(0, under)) || !(IsDigits(task) || pending_rest)) {
      return std::nullopt;
    }
    id.job_id = text;
    return id;
  }
  if (!IsDigits(text)) {
    return std::nullopt;
  }
  id.job_id = text;
  return id;
}

// "CANCELLED by 0" -> "CANCELLED"; "CANCELLED+" (sacct's truncation) -> "CANCELLED".
std::string StateWord(std::string_view state) {
  state = state.substr(0, state.find(' '));
  if (state.ends_with('+')) {
    state.remove_suffix(1);
  }
  return std::string(state);
}

std::vector<std::string_view> SplitColumns(std::string_view line) {
  std::vector<std::string_view> columns;
  while (true) {
    const std::size_t bar = line.find('|');
    columns.push_back(line.substr(0, bar));
    if (bar == std::string_view::npos) {
      return columns;
    }
    line.remove_prefix(bar + 1);
  }
}

struct PhaseWords {
  ClusterJobState::Phase phase;
  std::array<std::string_view, 11> words;
};

// docs/reference/slurm.md §5.1: every state squeue(1) lists.
constexpr std::array<PhaseWords, 3> kPhases{{
    {ClusterJobState::Phase::kPending,
     {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD",
      "SUSPENDED", "STOPPED"}},
    {ClusterJobState::Phase::kRunning,
     {"RUNNING", "COMPLETING", "SIGNALING", "STAGE_OUT", "RESIZING"}},
    {ClusterJobState::Phase::kFinished,
     {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY",
      "BOOT_FAIL", "DEADLINE", "REVOKED", "SPECIAL_EXIT"}},
}};

}  // namespace

Result<std::vector<SlurmJobRow>> ParseSqueueJson(std::string_view json) {
  const Json root = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return Status::InvalidArgument(fmt::format("squeue's answer is not JSON: {}", Quoted(json)));
  }
  const auto jobs = root.is_object() ? root.find("jobs") : root.end();
  if (!root.is_object() || jobs == root.end() || !jobs->is_array()) {
    return Status::InvalidArgument("squeue's JSON has no `jobs` array");
  }
  std::vector<SlurmJobRow> rows;
  rows.reserve(jobs->size());
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    Result<SlurmJobRow> row = SqueueRow((*jobs)[i], i);
    if (!row.ok()) {
      return row.status();
    }
    rows.push_back(std::move(*row));
  }
  return rows;
}

Result<std::vector<SlurmJobRow>> ParseSacctText(std::string_view text) {
  std::vector<SlurmJobRow> rows;
  int line_number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_number;
    if (line.ends_with('\r')) {
      line.remove_suffix(1);
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      continue;
    }
    const std::vector<std::string_view> columns = SplitColumns(line);
    if (columns.size() < 3) {
      return Status::InvalidArgument(
          fmt::format("sacct line {} has {} columns, not JobID|State|ExitCode[|Reason]: {}",
                      line_number, columns.size(), Quoted(line)));
    }
    const std::optional<SacctId> id = ParseSacctId(columns[0]);
    if (!id) {
      return Status::InvalidArgument(
          fmt::format("sacct line {}: {} is not a Slurm job id", line_number, Quoted(columns[0])));
    }
    if (id->step) {
      continue;
    }
    rows.push_back(SlurmJobRow{.job_id = id->job_id,
                               .het_offset = id->het_offset,
                               .state = StateWord(columns[1]),
                               .reason = columns.size() > 3 ? std::string(columns[3]) : ""});
  }
  return rows;
}

ClusterJobState::Phase PhaseOf(std::string_view slurm_state) {
  if (slurm_state.empty()) {
    return ClusterJobState::Phase::kUnknown;  // not a word, and kPhases' unused slots are ""
  }
  for (const PhaseWords& phase : kPhases) {
    if (std::ranges::find(phase.words, slurm_state) != phase.words.end()) {
      return phase.phase;
    }
  }
  return ClusterJobState::Phase::kUnknown;
}

ClusterJobState CombineRows(const std::string& id, const std::vector<SlurmJobRow>& rows) {
  std::vector<const SlurmJobRow*> components;
  for (const SlurmJobRow& row : rows) {
    if (row.job_id == id) {
      components.push_back(&row);
    }
  }
  std::ranges::stable_sort(components, {}, &SlurmJobRow::het_offset);
  ClusterJobState state{.id = id};
  if (components.empty()) {
    return state;
  }
  const auto decide = [&](const SlurmJobRow& row, ClusterJobState::Phase phase) {
    state.phase = phase;
    state.state = row.state;
    state.reason = row.reason;
    return state;
  };
  // Running beats pending beats an unknown word; finished only when every component is.
  for (const ClusterJobState::Phase phase :
       {ClusterJobState::Phase::kRunning, ClusterJobState::Phase::kPending,
        ClusterJobState::Phase::kUnknown}) {
    for (const SlurmJobRow* row : components) {
      if (PhaseOf(row->state) == phase) {
        return decide(*row, phase);
      }
    }
  }
  for (const SlurmJobRow* row : components) {
    if (row->state != "COMPLETED") {
      return decide(*row, ClusterJobState::Phase::kFinished);
    }
  }
  return decide(*components.front(), ClusterJobState::Phase::kFinished);
}

}  // namespace trainyard::run::slurm
