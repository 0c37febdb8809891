#include <algorithm>

#include <fmt/format.h>

#include "validate/formats.h"
#include "validate/rules.h"

namespace trainyard::validate {
namespace {

// docs/reference/ai-platform-training.md §2.2: at most 100 packageUris.
constexpr std::size_t kMaxPackageUris = 100;

std::string RuntimeNames(const catalog::Catalog& catalog) {
  std::vector<std::string> versions;
  for (const catalog::RuntimeVersion& runtime : catalog.runtime_versions()) {
    versions.push_back(runtime.version);
  }
  return fmt::format("{}", fmt::join(versions, ", "));
}

void CheckPackages(const JobContext& job, Violations& out) {
  const FieldPath path = job.path.Child("packageUris");
  const std::vector<std::string>& uris = job.input.package_uris;
  // docs/reference/ai-platform-training.md §2.8 #4: a runtime job needs its packages (a container
  // job brings its code).
  if (uris.empty() && !job.container_job()) {
    out.Add(path,
            "is required for a job without masterConfig.imageUri: give at least one "
            "package (gs://bucket/object or an absolute local path)");
  }
  if (uris.size() > kMaxPackageUris) {
    out.Add(path,
            fmt::format("{} packages given; at most {} are allowed", uris.size(), kMaxPackageUris));
  }
  for (std::size_t i = 0; i < uris.size(); ++i) {
    // docs/reference/ai-platform-training.md §2.2: packages are gs:// objects (absolute local
    // paths: trainyard extension).
    if (!IsGcsObjectUri(uris[i]) && !IsAbsoluteLocalPath(uris[i])) {
      out.Add(path.Index(i), fmt::format("'{}' is neither a gs://bucket/object URI nor an "
                                         "absolute local path",
                                         uris[i]));
    }
  }
}

void CheckModule(const JobContext& job, Violations& out) {
  const FieldPath path = job.path.Child("pythonModule");
  const std::string& module = job.input.python_module;
  // docs/reference/ai-platform-training.md §2.8 #4: a runtime job needs the module that `python -m`
  // runs.
  if (module.empty()) {
    if (!job.container_job()) {
      out.Add(path, "is required for a job without masterConfig.imageUri, e.g. trainer.task");
    }
    return;
  }
  // docs/reference/ai-platform-training.md §2.2: the module is run as `python -m <module>`.
  if (!IsPythonModule(module)) {
    out.Add(path,
            fmt::format("'{}' is not a dotted Python module name such as trainer.task", module));
  }
}

void CheckJobDir(const JobContext& job, Violations& out) {
  const std::string& dir = job.input.job_dir;
  // docs/reference/ai-platform-training.md §2.2: jobDir is a gs:// path (absolute local paths:
  // trainyard extension).
  if (!dir.empty() && !IsGcsDirectoryUri(dir) && !IsAbsoluteLocalPath(dir)) {
    out.Add(
        job.path.Child("jobDir"),
        fmt::format("'{}' is neither a gs://bucket[/path] URI nor an absolute local path", dir));
  }
}

void CheckVersions(const JobContext& job, Violations& out) {
  const FieldPath runtime_path = job.path.Child("runtimeVersion");
  const FieldPath python_path = job.path.Child("pythonVersion");
  const std::string& runtime_version = job.input.runtime_version;
  const std::string& python_version = job.input.python_version;
  if (job.container_job()) {
    // docs/reference/ai-platform-training.md §2.8 #5: a container job brings its own runtime.
    if (!runtime_version.empty()) {
      out.Add(runtime_path,
              "must not be set together with masterConfig.imageUri: the container "
              "brings its own runtime");
    }
    if (!python_version.empty()) {
      out.Add(python_path,
              "must not be set together with masterConfig.imageUri: the container "
              "brings its own Python");
    }
    return;
  }
  const catalog::RuntimeVersion* runtime = nullptr;
  if (!runtime_version.empty()) {
    // docs/reference/ai-platform-training.md §2.2: runtimeVersion names a runtime version the
    // catalog offers.
    runtime = job.catalog.FindRuntimeVersion(runtime_version);
    if (runtime == nullptr) {
      out.Add(runtime_path, fmt::format("unknown runtime version '{}'; versions: {}",
                                        runtime_version, RuntimeNames(job.catalog)));
    }
  }
  if (python_version.empty()) {
    return;
  }
  // docs/reference/ai-platform-training.md §2.8 #12: pythonVersion compatible with runtimeVersion.
  if (runtime != nullptr) {
    if (std::ranges::find(runtime->python_versions, python_version) ==
        runtime->python_versions.end()) {
      out.Add(python_path,
              fmt::format("runtime version {} offers Python {}; got '{}'", runtime->version,
                          fmt::join(runtime->python_versions, ", "), python_version));
    }
  } else if (runtime_version.empty()) {
    // No runtime given (trainyard picks its default): the version must exist at all.
    std::vector<std::string> offered;
    for (const catalog::RuntimeVersion& r : job.catalog.runtime_versions()) {
      for (const std::string& python : r.python_versions) {
        if (std::ranges::find(offered, python) == offered.end()) {
          offered.push_back(python);
        }
      }
    }
    if (std::ranges::find(offered, python_version) == offered.end()) {
      out.Add(python_path, fmt::format("unknown Python version '{}'; runtimes offer Python {}",
                                       python_version, fmt::join(offered, ", ")));
    }
  }
}

}  // namespace

void CheckCode(const JobContext& job, Violations& out) {
  CheckPackages(job, out);
  CheckModule(job, out);
  CheckJobDir(job, out);
  CheckVersions(job, out);
}

}  // namespace trainyard::validate
