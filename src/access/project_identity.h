// The identities a project has on Google Cloud, as ml v1's `projects.getConfig` answers them
// (docs/reference/ai-platform-training.md §1.2): the service account its jobs run as, the number
// of the project that account belongs to, and the Cloud TPU service account. trainyard has
// project ids only, so the number is a stand-in: 12 digits derived from the id, the same on every
// server and run. Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace trainyard::access {

struct ProjectIdentity {
  std::string number;               // ProjectNumber(project)
  std::string service_account;      // "trainyard@<project>.iam.gserviceaccount.com"
  std::string tpu_service_account;  // "service-<number>@cloud-tpu.iam.gserviceaccount.com"
};

// The stand-in project number of `project`: 12 digits (100000000000 to 999999999999) from the
// FNV-1a hash of the id, so different ids almost always get different numbers.
std::string ProjectNumber(std::string_view project);

ProjectIdentity IdentityOf(std::string_view project);

}  // namespace trainyard::access
