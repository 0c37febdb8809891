// A job's placement priority as a number (issue #34): higher is placed first, and (with the
// sharing rules) may preempt lower. Pure: part of the reconcile rules (control/reconcile/).
//
//   - a job with a priority class (a TFJob's schedulingPolicy.priorityClass, kept in its extras):
//     the class's number in the admin's table (sched::SharingPolicy::priority_classes), looked up
//     on each pass, so a changed number moves the jobs that name the class; a class the table no
//     longer has counts as 0, as a Kubernetes pod without a PriorityClass does (new jobs naming
//     an unknown class are refused at create: api/kube/tfjobs.cc);
//   - otherwise its ml v1 `scheduling.priority` (0 when unset). Vertex's CustomJob has no
//     priority field, so a Vertex job is 0.
#pragma once

#include "model/job.h"
#include "sched/sharing.h"

namespace trainyard::control {

// `sharing` may be null (no policy: every class counts as 0).
int PriorityOf(const model::Job& job, const sched::SharingPolicy* sharing);

}  // namespace trainyard::control
