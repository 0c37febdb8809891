// Reading Slurm's answers about jobs (pure): `squeue --json` (openapi v0.0.38 as Slurm 22.05
// prints it, where job_state is a string; later versions' arrays of strings are accepted too)
// and `sacct -P -n -o JobID,State,ExitCode,Reason` text, with the pitfalls of
// docs/reference/slurm.md §5: squeue's exit_code is a raw wait status (768 = exit 3), sacct's JSON
// loses exit codes (so sacct is read as text), sacct says "CANCELLED by 0", het components are
// "17+0", "17+1", steps "17.batch", "17+0.0" (steps are skipped).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "run/cluster_backend.h"

namespace trainyard::run::slurm {

// One Slurm job or het component.
struct SlurmJobRow {
  std::string job_id;  // the job's (a het leader's, for a het job) id as sbatch printed it: "17"
  int het_offset = 0;  // the component; 0 for plain jobs
  std::string state;   // "RUNNING", "CANCELLED" (sacct's "CANCELLED by 0" trimmed), …
  std::string reason;  // "Resources", "None", "NonZeroExitCode", "" when not given
  bool operator==(const SlurmJobRow&) const = default;
};

// INVALID_ARGUMENT when `json` is not squeue's JSON (no `jobs` array, a job without job_id or
// job_state). A het component's job_id is its het_job_id, het_offset its het_job_offset.
Result<std::vector<SlurmJobRow>> ParseSqueueJson(std::string_view json);

// `sacct -P -n -o JobID,State,ExitCode,Reason` output (JobID forms "17", "17+1", "17_3",
// "17_[4-9%2]" (kept whole as job_id); step lines "17.batch", "17+0.0", "17.extern" skipped; blank
// lines skipped). The Reason column may be absent (3 columns). INVALID_ARGUMENT naming the line
// when a line has too few columns or an id that is not a Slurm job id. Seen on 22.05 with
// jobcomp/filetxt (`sacct -c`): Reason is accepted but always empty, a het job's components are
// listed under their own plain ids ("9", not "8+1"), so `-j 8` gives only component 0, and sacct
// prints "Unknown type HetJobId" errors on stderr while exiting 0.
Result<std::vector<SlurmJobRow>> ParseSacctText(std::string_view text);

// What Slurm's state word means for trainyard: PENDING, CONFIGURING, REQUEUED, REQUEUE_HOLD,
// REQUEUE_FED, RESV_DEL_HOLD, SUSPENDED, STOPPED -> kPending; RUNNING, COMPLETING, SIGNALING,
// STAGE_OUT, RESIZING -> kRunning; COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED,
// OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, REVOKED, SPECIAL_EXIT -> kFinished; anything else kUnknown.
ClusterJobState::Phase PhaseOf(std::string_view slurm_state);

// One state for job `id` from its rows (its components; rows of other jobs are ignored):
// kUnknown with no row; kRunning when any component runs; kPending when any waits (and none
// runs); kUnknown, with that word, when a component's state is none of PhaseOf's (and none runs
// or waits); kFinished once every component finished, with the state of the first component (by
// het_offset) that did not COMPLETE (its reason), else COMPLETED. `state`/`reason` are the
// deciding component's; `id` is `id`.
ClusterJobState CombineRows(const std::string& id, const std::vector<SlurmJobRow>& rows);

}  // namespace trainyard::run::slurm
