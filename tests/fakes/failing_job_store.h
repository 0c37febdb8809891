// A `store::JobStore` in front of a real one whose writes can be made to fail with a given status
// (a full disk: RESOURCE_EXHAUSTED), to test what callers do when the store refuses a change,
// and whose ListUnfinished can be made to fail (a database not readable yet). Other reads always
// go through.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

#include "store/job_store.h"

namespace trainyard::testing {

class FailingJobStore final : public store::JobStore {
 public:
  explicit FailingJobStore(std::unique_ptr<store::JobStore> real) : real_(std::move(real)) {}

  // Every Create and Update answers `status` until FailWrites(Status()).
  void FailWrites(Status status) {
    std::lock_guard lock(mu_);
    failure_ = std::move(status);
  }

  // Every ListUnfinished answers `status` until FailLists(Status()).
  void FailLists(Status status) {
    std::lock_guard lock(mu_);
    list_failure_ = std::move(status);
  }

  Result<store::CreatedJob> Create(std::string_view project, const model::Job& job) override {
    if (Status failure = Failure(); !failure.ok()) {
      return failure;
    }
    return real_->Create(project, job);
  }
  Result<model::Job> Get(std::string_view project, std::string_view job_id) const override {
    return real_->Get(project, job_id);
  }
  Result<store::RevisionedJob> GetRevisioned(std::string_view project,
                                             std::string_view job_id) const override {
    return real_->GetRevisioned(project, job_id);
  }
  Result<std::string> GetJson(std::string_view project, std::string_view job_id) const override {
    return real_->GetJson(project, job_id);
  }
  Result<std::int64_t> Update(std::string_view project, const model::Job& job,
                              std::string_view expected_etag) override {
    if (Status failure = Failure(); !failure.ok()) {
      return failure;
    }
    return real_->Update(project, job, expected_etag);
  }
  Result<store::JobPage> List(std::string_view project,
                              const std::optional<store::ListCursor>& after,
                              int limit) const override {
    return real_->List(project, after, limit);
  }
  Result<store::JsonPage> ListJson(std::string_view project,
                                   const std::optional<store::ListCursor>& after,
                                   int limit) const override {
    return real_->ListJson(project, after, limit);
  }
  Result<std::vector<std::pair<std::string, model::Job>>> ListUnfinished() const override {
    {
      std::lock_guard lock(mu_);
      if (!list_failure_.ok()) {
        return list_failure_;
      }
    }
    return real_->ListUnfinished();
  }
  Result<store::RevisionedJob> GetKubeObject(std::string_view project, std::string_view kind,
                                             std::string_view name) const override {
    return real_->GetKubeObject(project, kind, name);
  }
  Result<std::vector<store::RevisionedJob>> ListKubeObjects(std::string_view project,
                                                            std::string_view kind,
                                                            std::int64_t after_revision,
                                                            bool live_only,
                                                            int limit) const override {
    return real_->ListKubeObjects(project, kind, after_revision, live_only, limit);
  }
  Result<std::int64_t> Revision() const override { return real_->Revision(); }
  Result<std::vector<std::pair<model::JobState, std::int64_t>>> CountByState() const override {
    return real_->CountByState();
  }

  Result<std::vector<std::string>> Projects() const override { return real_->Projects(); }

 private:
  Status Failure() {
    std::lock_guard lock(mu_);
    return failure_;
  }

  std::unique_ptr<store::JobStore> real_;
  mutable std::mutex mu_;
  Status failure_;
  Status list_failure_;
};

}  // namespace trainyard::testing
