// How a run ends when its cluster manager's job ended while some of its replicas had
// not recorded their own end: killed with their task, or never started. Pure: the cluster
// backend (agent/cluster_job_backend.h) observes, this decides, the backend applies.
//
// Unless trainyard itself was stopping the run (then its own outcome stands):
//   - the manager ended it at its time limit (TIMEOUT) and the job has scheduling.maxRunningTime:
//     CANCELLED with the maxRunningTime message, as a local run past its limit is (the limit was
//     the manager's copy of maxRunningTime);
//   - the manager's job was CANCELLED (scancel outside trainyard): CANCELLED, saying so;
//   - anything else: FAILED, naming the manager's state and reason, or that the manager no longer
//     knows the job, and the replicas that had not ended.
#pragma once

#include <string>
#include <vector>

#include "model/job.h"

namespace trainyard::control {

struct ManagerJobEnd {
  std::string manager;   // the manager's name, as messages say it
  std::string batch_id;  // the manager's job id
  bool known = true;     // false: the manager no longer knows the job
  std::string state;     // the manager's state word: "TIMEOUT", "CANCELLED", "NODE_FAIL", …
  std::string reason;    // its reason for it; "" or "None" for none
  bool has_max_running_time = false;  // the job's scheduling.maxRunningTime is set
  std::vector<std::string> missing;   // the replicas' task names that had not ended
};

struct ManagerEndOutcome {
  model::JobState state = model::JobState::kFailed;  // kCancelled or kFailed
  std::string message;                               // the job's errorMessage
  // The job is first marked CANCELLING (a cancel, as the local limit's is), then ends.
  bool cancelling_first = false;
};

ManagerEndOutcome DecideManagerEnd(const ManagerJobEnd& end);

}  // namespace trainyard::control
