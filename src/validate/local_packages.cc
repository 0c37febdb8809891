#include "validate/local_packages.h"

#include <fmt/format.h>

#include "base/path.h"

namespace trainyard::validate {
std::vector<FieldViolation> CheckLocalPackages(const model::Job& job,
                                               const LocalPackagePolicy& policy) {
  std::vector<FieldViolation> out;
  if (!job.training_input || policy.any_path) {
    return out;
  }
  const std::vector<std::string>& uris = job.training_input->package_uris;
  for (std::size_t i = 0; i < uris.size(); ++i) {
    const std::string& uri = uris[i];
    if (!uri.starts_with('/')) {
      continue;  // gs:// (or malformed, which validate.h reports)
    }
    const std::string field = fmt::format("trainingInput.packageUris[{}]", i);
    if (!IsNormalisedAbsolutePath(uri)) {
      out.push_back({field, fmt::format("'{}' is not a normalised path (it has an empty, '.' or "
                                        "'..' segment)",
                                        uri)});
      continue;
    }
    bool allowed = false;
    for (const std::string& dir : policy.dirs) {
      allowed = allowed || IsBelowDirectory(uri, dir);
    }
    if (!allowed) {
      out.push_back(
          {field, policy.dirs.empty()
                      ? fmt::format("'{}' is a local path, and this server installs no local "
                                    "packages: upload it to a bucket (gcloud's --package-path "
                                    "does) and give its gs:// URI",
                                    uri)
                      : fmt::format("'{}' is outside the directories this server installs local "
                                    "packages from ({}): upload it to a bucket and give its "
                                    "gs:// URI",
                                    uri, fmt::join(policy.dirs, ", "))});
    }
  }
  return out;
}

}  // namespace trainyard::validate
