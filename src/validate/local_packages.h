// Where a job's local packages may come from (issue #17). `packageUris` may name absolute local
// paths besides gs:// objects (validate.h); pip then reads them with the server's rights. So a
// server that others can reach, or whose jobs run as another user, installs local packages only
// from the directories its operator names (`serve --package-dir`): a job cannot have any file
// the server can read installed, and so read. This check is lexical, at submit; the stager checks
// the real path again at staging (a symbolic link must not lead out). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::validate {

struct LocalPackagePolicy {
  bool any_path = true;           // true: every absolute path (a single user's own machine)
  std::vector<std::string> dirs;  // otherwise: only files below these (absolute) directories
};

// The violations of `policy` by `job`'s local packageUris, at "trainingInput.packageUris[i]"
// (gs:// URIs are not local and always pass).
std::vector<FieldViolation> CheckLocalPackages(const model::Job& job,
                                               const LocalPackagePolicy& policy);

}  // namespace trainyard::validate
