#include "control/sharing_admin.h"

#include <algorithm>
#include <string>
#include <utility>

#include "control/resource_names.h"
#include "sched/sharing_json.h"

namespace trainyard::control {

SharingAdmin::SharingAdmin(store::SharingStore& store, const catalog::Catalog& catalog)
    : store_(store), catalog_(catalog), current_(std::make_shared<sched::SharingPolicy>()) {}

Status SharingAdmin::Load() {
  Result<store::SharingRows> rows = store_.Load();
  if (!rows.ok()) {
    return rows.status();
  }
  auto policy = std::make_shared<sched::SharingPolicy>();
  for (const auto& [project, text] : rows->quotas) {
    Result<sched::ProjectQuota> quota = sched::DecodeProjectQuota(project, text, catalog_);
    if (!quota.ok()) {
      return Status::Internal("the stored quota of project " + project +
                              " does not decode: " + quota.status().ToString());
    }
    policy->projects.push_back(*std::move(quota));
  }
  for (const auto& [name, value] : rows->priority_classes) {
    policy->priority_classes.emplace(name, value);
  }
  std::lock_guard lock(mu_);
  current_ = std::move(policy);
  return Status();
}

SharingPolicyPtr SharingAdmin::Current() const {
  std::lock_guard lock(mu_);
  return current_;
}

template <typename Edit>
void SharingAdmin::Publish(Edit edit) {
  auto next = std::make_shared<sched::SharingPolicy>(*current_);
  edit(*next);
  current_ = std::move(next);
}

void SharingAdmin::Notify() const {
  // Outside mu_, so the listener may take its own locks and call Current(); one call at a time,
  // each with the policy as it is then, so the last call always hands over the newest.
  std::lock_guard lock(notify_mu_);
  if (listener_) {
    listener_(Current());
  }
}

Result<sched::ProjectQuota> SharingAdmin::SetQuota(std::string_view project,
                                                   std::string_view body) {
  if (auto violation = CheckProjectId(project, "name")) {
    return Status::InvalidArgument(std::vector<FieldViolation>{std::move(*violation)});
  }
  Result<sched::ProjectQuota> quota = sched::DecodeProjectQuota(project, body, catalog_);
  if (!quota.ok()) {
    return quota.status();
  }
  {
    std::lock_guard lock(mu_);
    TY_RETURN_IF_ERROR(store_.PutQuota(project, sched::EncodeProjectQuota(*quota)));
    Publish([&](sched::SharingPolicy& policy) {
      auto& projects = policy.projects;
      const auto at = std::ranges::lower_bound(projects, quota->project, std::less<>{},
                                               &sched::ProjectQuota::project);
      if (at != projects.end() && at->project == quota->project) {
        *at = *quota;
      } else {
        projects.insert(at, *quota);
      }
    });
  }
  Notify();
  return quota;
}

Status SharingAdmin::DeleteQuota(std::string_view project) {
  {
    std::lock_guard lock(mu_);
    TY_RETURN_IF_ERROR(store_.DeleteQuota(project));
    Publish([&](sched::SharingPolicy& policy) {
      std::erase_if(policy.projects,
                    [&](const sched::ProjectQuota& quota) { return quota.project == project; });
    });
  }
  Notify();
  return Status();
}

Result<int> SharingAdmin::SetPriorityClass(std::string_view name, std::string_view body) {
  Result<int> value = sched::DecodePriorityClass(name, body);
  if (!value.ok()) {
    return value.status();
  }
  {
    std::lock_guard lock(mu_);
    TY_RETURN_IF_ERROR(store_.PutPriorityClass(name, *value));
    Publish([&](sched::SharingPolicy& policy) {
      policy.priority_classes.insert_or_assign(std::string(name), *value);
    });
  }
  Notify();
  return value;
}

Status SharingAdmin::DeletePriorityClass(std::string_view name) {
  {
    std::lock_guard lock(mu_);
    TY_RETURN_IF_ERROR(store_.DeletePriorityClass(name));
    Publish([&](sched::SharingPolicy& policy) {
      const auto found = policy.priority_classes.find(name);
      if (found != policy.priority_classes.end()) {
        policy.priority_classes.erase(found);
      }
    });
  }
  Notify();
  return Status();
}

}  // namespace trainyard::control
