// Share: one pass of quotas, fair share, reservation and preemption (sched/fair_share.h).
#include "sched/fair_share.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "base/time_format.h"
#include "sched/amounts.h"
#include "sched/fair_share_victims.h"
#include "sched/project_share.h"
#include "sched/room.h"
#include "sched/wait_reason.h"

namespace trainyard::sched {
namespace {

std::string ProjectOf(const std::string& project, const std::string& key) {
  return project.empty() ? key.substr(0, key.find('/')) : project;
}

// The first of `quota`'s limits on accelerators, vCPUs and memory that `use` plus `more` passes,
// as "project p uses 4 of its 4 × NVIDIA_TESLA_T4"; nullopt when within every one.
std::optional<std::string> PastQuota(const ProjectQuota* quota, const Amounts& use,
                                     const Amounts& more) {
  if (quota == nullptr) {
    return std::nullopt;
  }
  for (const auto& [type, wanted] : more.devices) {
    const auto limit = quota->accelerators.find(type);
    if (limit != quota->accelerators.end() && use.DevicesOf(type) + wanted > limit->second) {
      return fmt::format("Project {} uses {} of its {} × {} (quota)", quota->project,
                         use.DevicesOf(type), limit->second, type);
    }
  }
  if (quota->cpus && more.cpus > 0 && use.cpus + more.cpus > *quota->cpus) {
    return fmt::format("Project {} uses {} of its {} vCPUs (quota)", quota->project, use.cpus,
                       *quota->cpus);
  }
  if (quota->memory_mib && more.memory_mib > 0 &&
      use.memory_mib + more.memory_mib > *quota->memory_mib) {
    return fmt::format("Project {} uses {} of its {} MiB of memory (quota)", quota->project,
                       use.memory_mib, *quota->memory_mib);
  }
  return std::nullopt;
}

// Whether `quota` limits something `need` asks for (so the project has room of its own to reclaim).
bool Guards(const ProjectQuota* quota, const Amounts& need) {
  if (quota == nullptr) {
    return false;
  }
  return std::ranges::any_of(
             need.devices, [&](const auto& d) { return quota->accelerators.contains(d.first); }) ||
         (quota->cpus && need.cpus > 0) || (quota->memory_mib && need.memory_mib > 0);
}

// "8 × NVIDIA_TESLA_T4" (every type it asks for), or its vCPUs when it asks for no device.
std::string Needs(const Amounts& need) {
  std::string text;
  for (const auto& [type, count] : need.devices) {
    text += fmt::format("{}{} × {}", text.empty() ? "" : ", ", count, type);
  }
  return text.empty() ? fmt::format("{} vCPUs", need.cpus) : text;
}

struct Reservation {
  const JobDemand* job;
  Allocation allocation;
  std::optional<WallTime> until;  // when it is expected to fit; nullopt: unknown
};

class Pass {
 public:
  explicit Pass(const ShareInput& input)
      : in_(input),
        room_(input.inventory, input.accounting),
        capacity_(CapacityOf(input.inventory)) {
    for (const RunningJob& job : in_.running) {
      room_.Take(job.allocation);
      holding_.push_back(job.allocation);
      ends_.push_back(EndOf(job));
    }
    MarkBorrowed();
  }

  SharePass Run() {
    // Each project's jobs in priority, then FIFO, order; projects by (priority, share, age).
    std::map<std::string, std::deque<const JobDemand*>, std::less<>> queues;
    for (const JobDemand& job : in_.queue) {
      queues[ProjectOf(job.project, job.key)].push_back(&job);
    }
    using Entry = std::tuple<int, bool, double, std::int64_t, std::string>;
    std::set<Entry> order;
    auto enter = [&](const std::string& project) {
      const JobDemand* head = queues[project].front();
      order.emplace(-head->priority, !KeepsItsPlace(*head), ShareOf(project), head->sequence,
                    project);
    };
    for (auto& [project, jobs] : queues) {
      std::ranges::stable_sort(jobs, [&](const JobDemand* a, const JobDemand* b) {
        return std::tuple(-a->priority, !KeepsItsPlace(*a), a->sequence) <
               std::tuple(-b->priority, !KeepsItsPlace(*b), b->sequence);
      });
      enter(project);
    }
    while (!order.empty()) {
      const std::string project = std::get<4>(*order.begin());
      order.erase(order.begin());
      std::deque<const JobDemand*>& jobs = queues[project];
      Consider(project, *jobs.front());
      jobs.pop_front();
      if (!jobs.empty()) {
        enter(project);
      }
    }
    if (reservation_) {
      out_.reserved = reservation_->job->key;
    }
    return std::move(out_);
  }

 private:
  std::optional<WallTime> EndOf(const RunningJob& job) const {
    if (job.allocation.stopping) {
      return in_.now;
    }
    if (!job.max_running_time) {
      return std::nullopt;
    }
    return job.start.value_or(in_.now) +
           std::chrono::duration_cast<WallTime::duration>(*job.max_running_time);
  }
  // When a job starting now with `max_running_time` ends at the latest; nullopt: unknown.
  std::optional<WallTime> EndAfter(
      const std::optional<std::chrono::nanoseconds>& max_running_time) const {
    if (!max_running_time) {
      return std::nullopt;
    }
    return in_.now + std::chrono::duration_cast<WallTime::duration>(*max_running_time);
  }

  const ProjectQuota* QuotaOf(std::string_view project) const {
    return in_.policy == nullptr ? nullptr : in_.policy->QuotaOf(project);
  }

  // Whether the last pass's head goes before the shares (fair_share.h, "Order"): only one that
  // could be starved without its place, a job of more than one device or any under kStrict.
  bool KeepsItsPlace(const JobDemand& job) const {
    if (!job.head) {
      return false;
    }
    if (in_.accounting == Accounting::kStrict) {
      return true;
    }
    int devices = 0;
    for (const ReplicaDemand& replica : job.replicas) {
      devices += replica.accelerator_count;
    }
    return devices > 1;
  }

  // Weighted dominant share (sched/project_share.h), with the project's past usage when known.
  double ShareOf(const std::string& project) {
    const ProjectShare standing =
        ShareOfProject(use_[project], QuotaOf(project), capacity_, in_.accounting);
    if (in_.usage == nullptr) {
      return standing.Weighted(standing.share);
    }
    const auto past = in_.usage->find(project);
    return standing.Weighted((past == in_.usage->end() ? 0 : past->second) +
                             standing.share * static_cast<double>(in_.usage_horizon.count()));
  }

  // Each project's running jobs, oldest first, against its quota: those past it are borrowed.
  void MarkBorrowed() {
    std::vector<const RunningJob*> jobs;
    for (const RunningJob& job : in_.running) {
      jobs.push_back(&job);
    }
    std::ranges::stable_sort(jobs, [&](const RunningJob* a, const RunningJob* b) {
      return std::tuple(a->start.value_or(in_.now), a->allocation.key) <
             std::tuple(b->start.value_or(in_.now), b->allocation.key);
    });
    for (const RunningJob* job : jobs) {
      const std::string project = ProjectOf(job->project, job->allocation.key);
      const Amounts held = AmountsOf(job->allocation, in_.inventory);
      if (PastQuota(QuotaOf(project), use_[project], held)) {
        borrowed_.insert(job);
      }
      use_[project].Add(held);
    }
  }

  void Consider(const std::string& project, const JobDemand& job) {
    const ProjectQuota* quota = QuotaOf(project);
    Amounts& use = use_[project];
    if (quota != nullptr && quota->jobs && use.jobs >= *quota->jobs) {
      Wait(job, fmt::format("Project {} runs {} of its {} jobs (quota).", project, use.jobs,
                            *quota->jobs));
      return;
    }
    const Amounts need = AmountsOf(job);
    const std::optional<std::string> past = PastQuota(quota, use, need);
    if (std::optional<Allocation> allocation = TryStart(job)) {
      use.Add(need);
      holding_.push_back(*allocation);
      ends_.push_back(EndAfter(job.max_running_time));
      out_.start.push_back(std::move(*allocation));
      return;
    }
    if (!reservation_) {
      Reserve(project, job, need, past);
      return;
    }
    if (room_.Fits(job)) {
      const Reservation& r = *reservation_;
      Wait(job,
           fmt::format("Waiting behind the reservation for job {} (needs {}, expected free {}).",
                       r.job->key, Needs(AmountsOf(*r.job)),
                       r.until ? "at " + FormatTimestamp(*r.until)
                               : std::string("when running jobs without a maxRunningTime end")));
    } else if (past) {
      Wait(job, *past + ", and no idle devices are left to borrow.");
    } else {
      Wait(job, WaitReason(room_, job));
    }
  }

  // Starts `job` where the reservation allows: off its devices, or on them when it ends first.
  std::optional<Allocation> TryStart(const JobDemand& job) {
    if (!reservation_) {
      return room_.TryTake(job);
    }
    if (std::optional<Allocation> allocation = reserved_room_->TryTake(job)) {
      room_.Take(*allocation);
      return allocation;
    }
    const std::optional<WallTime>& until = reservation_->until;
    if (const std::optional<WallTime> end = EndAfter(job.max_running_time);
        until && end && *end <= *until) {
      if (std::optional<Allocation> allocation = room_.TryTake(job)) {
        reserved_room_->Take(*allocation);
        return allocation;
      }
    }
    return std::nullopt;
  }

  // The first job that does not fit: it waits for jobs stopping, preempts, or is reserved for.
  void Reserve(const std::string& project, const JobDemand& job, const Amounts& need,
               const std::optional<std::string>& past) {
    const std::string room_reason =
        past ? *past + ", and no idle devices are left to borrow." : WaitReason(room_, job);
    Room without_stopping = room_;
    std::vector<std::string> stopping;
    for (const RunningJob& running : in_.running) {
      if (running.allocation.stopping) {
        without_stopping.Give(running.allocation);
        stopping.push_back(running.allocation.key);
      }
    }
    if (std::optional<Allocation> allocation = without_stopping.TryTake(job)) {
      SetReservation(job, std::move(*allocation), in_.now);
      Wait(job, fmt::format("Waiting for {} to stop; it starts then.", fmt::join(stopping, ", ")));
      return;
    }
    if (std::optional<VictimChoice> choice =
            ChooseVictims(without_stopping, Candidates(project, job, need, past), job)) {
      std::vector<std::string> keys;
      for (const RunningJob* victim : choice->victims) {
        keys.push_back(victim->allocation.key);
        out_.preempt.push_back({.victim = victim->allocation.key,
                                .by = job.key,
                                .message = VictimMessage(*victim, project, job)});
      }
      SetReservation(job, std::move(choice->allocation), in_.now);
      Wait(job, fmt::format("Preempting {} to make room; it starts once they have stopped.",
                            fmt::join(keys, ", ")));
      return;
    }
    // Running jobs end in the order of their expected end (unknown last) until the job fits.
    std::vector<std::size_t> ends(holding_.size());
    for (std::size_t i = 0; i < ends.size(); ++i) {
      ends[i] = i;
    }
    std::ranges::stable_sort(ends, [&](std::size_t a, std::size_t b) {
      return std::tuple(!ends_[a], ends_[a].value_or(WallTime{}), holding_[a].key) <
             std::tuple(!ends_[b], ends_[b].value_or(WallTime{}), holding_[b].key);
    });
    Room later = room_;
    for (const std::size_t i : ends) {
      const std::optional<WallTime>& end = ends_[i];
      later.Give(holding_[i]);
      if (std::optional<Allocation> fits = later.TryTake(job)) {
        SetReservation(job, std::move(*fits), end);
        Wait(job,
             end ? room_reason + fmt::format(" It holds the reservation: expected to start by {}.",
                                             FormatTimestamp(*end))
                 : room_reason);
        return;
      }
    }
    Wait(job, room_reason);  // fits only an inventory without running jobs it cannot wait for
  }

  std::vector<Candidate> Candidates(const std::string& project, const JobDemand& job,
                                    const Amounts& need, const std::optional<std::string>& past) {
    const bool reclaims = !past && Guards(QuotaOf(project), need);
    std::vector<Candidate> candidates;
    for (const RunningJob& running : in_.running) {
      if (running.allocation.stopping || !running.preemptible) {
        continue;
      }
      const std::string owner = ProjectOf(running.project, running.allocation.key);
      const bool borrowed = borrowed_.contains(&running);
      const bool guaranteed = QuotaOf(owner) != nullptr && !borrowed;
      const bool by_priority = running.priority < job.priority && (owner == project || !guaranteed);
      const bool by_reclaim = reclaims && borrowed && owner != project;
      if (by_priority || by_reclaim) {
        candidates.push_back(
            {.running = &running, .borrowed = borrowed, .start = running.start.value_or(in_.now)});
      }
    }
    return candidates;
  }

  std::string VictimMessage(const RunningJob& victim, const std::string& project,
                            const JobDemand& job) const {
    if (victim.priority < job.priority) {
      return fmt::format(
          "The job was preempted by job {}, of higher priority ({} over {}): its replicas are "
          "stopped, and it waits in the queue to run again.",
          job.key, job.priority, victim.priority);
    }
    return fmt::format(
        "The job was preempted by job {}: project {} reclaims its quota, which this job "
        "borrowed; its replicas are stopped, and it waits in the queue to run again.",
        job.key, project);
  }

  void SetReservation(const JobDemand& job, Allocation allocation, std::optional<WallTime> until) {
    reserved_room_ = room_;
    reserved_room_->Take(allocation);
    reservation_ = Reservation{.job = &job, .allocation = std::move(allocation), .until = until};
  }

  void Wait(const JobDemand& job, std::string reason) {
    out_.waiting.push_back({.key = job.key, .reason = std::move(reason)});
  }

  const ShareInput& in_;
  Room room_;
  Amounts capacity_;
  std::map<std::string, Amounts, std::less<>> use_;
  std::set<const RunningJob*> borrowed_;
  std::vector<Allocation> holding_;            // running, then started in this pass (WaitReason's)
  std::vector<std::optional<WallTime>> ends_;  // parallel to holding_: expected ends, if known
  std::optional<Reservation> reservation_;
  std::optional<Room> reserved_room_;  // room_ with the reservation's devices taken
  SharePass out_;
};

}  // namespace

bool PreemptibleByLabels(const std::map<std::string, std::string>& labels) {
  const auto found = labels.find(std::string(kPreemptibleLabel));
  return found == labels.end() || found->second != "false";
}

SharePass Share(const ShareInput& input) {
  return Pass(input).Run();
}

}  // namespace trainyard::sched
