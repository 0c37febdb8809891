// The server's sharing policy (issue #34): loaded from the store at start, changed only here
// (the trainyard v1 admin routes), and handed whole to those that read it: the controller's
// refusal at create, the executor's passes, the metrics. A change is decoded and checked
// (sched/sharing_json.h) before it is written, so bad input changes nothing; a change the store
// refused leaves the policy as it was. Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string_view>

#include "base/status.h"
#include "catalog/catalog.h"
#include "sched/sharing.h"
#include "store/sharing_store.h"

namespace trainyard::control {

using SharingPolicyPtr = std::shared_ptr<const sched::SharingPolicy>;

class SharingAdmin {
 public:
  // `store` and `catalog` must outlive this. The policy is empty until `Load`.
  SharingAdmin(store::SharingStore& store, const catalog::Catalog& catalog);

  // Reads the store; INTERNAL naming a row that no longer decodes (a catalog without its
  // accelerator).
  Status Load();

  // The policy now; never null. A change replaces it: a caller's copy stays as it was.
  SharingPolicyPtr Current() const;

  // Replaces the quota of `project` with `body` (sched::DecodeProjectQuota); the quota stored.
  Result<sched::ProjectQuota> SetQuota(std::string_view project, std::string_view body);
  // NOT_FOUND when the project has none.
  Status DeleteQuota(std::string_view project);
  // Sets priority class `name` from `body` ({"value": 1000}); the value stored.
  Result<int> SetPriorityClass(std::string_view name, std::string_view body);
  // NOT_FOUND when there is none.
  Status DeletePriorityClass(std::string_view name);

  // Called with the policy after each change is stored (on the changer's thread, outside this
  // object's lock, one call at a time; the last call has the newest policy). Set before serving.
  void SetChangeListener(std::function<void(SharingPolicyPtr)> listener) {
    listener_ = std::move(listener);
  }

 private:
  // Applies `edit` to a copy of the policy and makes the copy current (mu_ held).
  template <typename Edit>
  void Publish(Edit edit);
  void Notify() const;

  store::SharingStore& store_;
  const catalog::Catalog& catalog_;
  std::function<void(SharingPolicyPtr)> listener_;
  mutable std::mutex mu_;         // serialises changes and guards current_
  mutable std::mutex notify_mu_;  // one listener call at a time
  SharingPolicyPtr current_;
};

}  // namespace trainyard::control
