// libFuzzer target for reading Slurm's answers (run/slurm/slurm_status.h): `squeue --json` and
// `sacct -P` text. Every input must give rows or an INVALID_ARGUMENT, never a crash or an escaped
// exception; the rows of every job combine into a state for that job.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/check.h"
#include "run/slurm/slurm_status.h"

namespace trainyard::run::slurm {
namespace {

void CheckRows(const Result<std::vector<SlurmJobRow>>& rows) {
  if (!rows.ok()) {
    TY_CHECK(rows.status().code() == Code::kInvalidArgument) << rows.status().ToString();
    return;
  }
  std::set<std::string> ids;
  for (const SlurmJobRow& row : *rows) {
    TY_CHECK(!row.job_id.empty());
    TY_CHECK(row.het_offset >= 0) << row.het_offset;
    ids.insert(row.job_id);
  }
  for (const std::string& id : ids) {
    const ClusterJobState state = CombineRows(id, *rows);
    TY_CHECK(state.id == id) << state.id;
    TY_CHECK(state.phase == ClusterJobState::Phase::kUnknown || PhaseOf(state.state) == state.phase)
        << state.state;
  }
}

void FuzzOne(std::string_view text) {
  CheckRows(ParseSqueueJson(text));
  CheckRows(ParseSacctText(text));
}

}  // namespace
}  // namespace trainyard::run::slurm

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::run::slurm::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
