#include "control/reconcile/priority.h"

namespace trainyard::control {

int PriorityOf(const model::Job& job, const sched::SharingPolicy* sharing) {
  if (job.extras.has_value() && !job.extras->priority_class.empty()) {
    if (sharing == nullptr) {
      return 0;
    }
    const auto found = sharing->priority_classes.find(job.extras->priority_class);
    return found == sharing->priority_classes.end() ? 0 : found->second;
  }
  if (job.training_input.has_value() && job.training_input->scheduling.has_value()) {
    return job.training_input->scheduling->priority;
  }
  return 0;
}

}  // namespace trainyard::control
