// A `run::ClusterBackend` that runs nothing: it records every Submit (answering ids "1", "2", …)
// and Cancel, and Query answers from the states the test sets (SetState); a job without one is
// PENDING right after its submit ("Priority") and kUnknown when never submitted. RefuseSubmits
// makes Submit answer FAILED_PRECONDITION; FailQueries makes Query answer INTERNAL.
// Thread-safe, though executor tests drive everything from the test thread.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "run/cluster_backend.h"

namespace trainyard::testing {

class FakeClusterBackend final : public run::ClusterBackend {
 public:
  using Phase = run::ClusterJobState::Phase;

  std::string Name() const override { return "FakeSlurm"; }

  Result<std::string> Submit(const run::ClusterJobRequest& request) override {
    std::lock_guard lock(mu_);
    if (refusal_) {
      return Status::FailedPrecondition(*refusal_);
    }
    submitted_.push_back(request);
    const std::string id = std::to_string(submitted_.size());
    states_[id] = {.phase = Phase::kPending, .state = "PENDING", .reason = "Priority", .id = id};
    return id;
  }

  Status Cancel(const std::string& id) override {
    std::lock_guard lock(mu_);
    cancelled_.push_back(id);
    return Status();
  }

  Result<std::map<std::string, run::ClusterJobState>> Query(
      const std::vector<std::string>& ids) override {
    std::lock_guard lock(mu_);
    ++queries_;
    if (query_failure_) {
      return Status::Internal(*query_failure_);
    }
    std::map<std::string, run::ClusterJobState> answer;
    for (const std::string& id : ids) {
      const auto known = states_.find(id);
      answer[id] = known != states_.end()
                       ? known->second
                       : run::ClusterJobState{.phase = Phase::kUnknown, .id = id};
    }
    return answer;
  }

  // What Query says of `id` from now on.
  void SetState(const std::string& id, Phase phase, std::string state, std::string reason = "") {
    std::lock_guard lock(mu_);
    states_[id] = {
        .phase = phase, .state = std::move(state), .reason = std::move(reason), .id = id};
  }
  void Forget(const std::string& id) {
    std::lock_guard lock(mu_);
    states_.erase(id);
  }

  // Submit answers FAILED_PRECONDITION with `message` (nullopt: accepts again).
  void RefuseSubmits(std::optional<std::string> message) {
    std::lock_guard lock(mu_);
    refusal_ = std::move(message);
  }
  // Query answers INTERNAL with `message` (nullopt: answers again).
  void FailQueries(std::optional<std::string> message) {
    std::lock_guard lock(mu_);
    query_failure_ = std::move(message);
  }

  std::vector<run::ClusterJobRequest> submitted() const {
    std::lock_guard lock(mu_);
    return submitted_;
  }
  std::vector<std::string> cancelled() const {
    std::lock_guard lock(mu_);
    return cancelled_;
  }
  int queries() const {
    std::lock_guard lock(mu_);
    return queries_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<run::ClusterJobRequest> submitted_;
  std::vector<std::string> cancelled_;
  std::map<std::string, run::ClusterJobState> states_;
  std::optional<std::string> refusal_;
  std::optional<std::string> query_failure_;
  int queries_ = 0;
};

}  // namespace trainyard::testing
