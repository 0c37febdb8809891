#include "cli/local/packages.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/sha256.h"
#include "cli/local/sdist.h"

namespace trainyard::cli {
namespace {

namespace fs = std::filesystem;

// jobs_prep._UploadFilesByPath: one object name per basename.
Status CheckDuplicateNames(const std::vector<fs::path>& files) {
  std::map<std::string, int> counts;
  std::vector<std::string> duplicates;
  for (const fs::path& file : files) {
    if (++counts[file.filename().string()] == 2) {
      duplicates.push_back(file.filename().string());
    }
  }
  if (duplicates.empty()) {
    return {};
  }
  return Status::InvalidArgument(fmt::format(
      "Cannot upload multiple packages with the same filename: [{}]", fmt::join(duplicates, ", ")));
}

}  // namespace

Result<std::optional<ObjectRef>> StagingLocation(const PackageSources& sources) {
  if (sources.staging_bucket) {
    return std::optional<ObjectRef>(ObjectRef{*sources.staging_bucket, sources.job_id});
  }
  if (sources.job_dir) {
    // ObjectReference.FromName checks the bucket, which `--job-dir gs://b` skipped.
    TY_RETURN_IF_ERROR(CheckBucketName(sources.job_dir->bucket));
    std::string name = sources.job_dir->name;
    while (name.ends_with('/')) {
      name.pop_back();
    }
    return std::optional<ObjectRef>(
        ObjectRef{sources.job_dir->bucket, name.empty() ? "packages" : name + "/packages"});
  }
  return std::optional<ObjectRef>();
}

std::string UploadObjectName(std::string_view prefix, std::string_view checksum_hex,
                             std::string_view basename) {
  // uploads.UploadFiles joins with '/'; gs_prefix is never None for training jobs.
  return fmt::format("{}/{}/{}", prefix, checksum_hex, basename);
}

Result<std::string> Sha256OfFiles(const std::vector<fs::path>& files) {
  Sha256 digest;
  if (!digest.ok()) {
    return Status::Internal("Cannot initialise SHA-256");
  }
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      return Status::InvalidArgument(
          fmt::format("Unable to read file [{}]: {}", file.string(), std::strerror(errno)));
    }
    if (!digest.AddStream(in)) {
      return Status::InvalidArgument(fmt::format("Unable to read file [{}]", file.string()));
    }
  }
  return digest.Hex();
}

Result<StagedPackages> StagePackages(const PackageSources& sources) {
  auto location = StagingLocation(sources);
  if (!location.ok()) {
    return location.status();
  }
  StagedPackages staged;
  std::vector<fs::path> local;
  for (const std::string& package : sources.packages) {
    if (IsStorageUrl(package)) {
      staged.uris.push_back(package);
    } else {
      local.emplace_back(package);
    }
  }
  if (!sources.package_path && local.empty()) {
    return staged;
  }
  if (!location->has_value()) {
    return Status::InvalidArgument(
        "If local packages are provided, the `--staging-bucket` or `--job-dir` flag must be "
        "given.");
  }
  for (const fs::path& file : local) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      return Status::InvalidArgument(
          fmt::format("Unable to read file [{}]: No such file", file.string()));
    }
  }
  if (sources.package_path) {
    auto dir = TempDir::Create("trainyard-sdist-");
    if (!dir.ok()) {
      return dir.status();
    }
    staged.build_dir.emplace(*std::move(dir));
    const fs::path work = staged.build_dir->path() / "work";
    const fs::path output = staged.build_dir->path() / "output";
    fs::create_directories(work);
    fs::create_directories(output);
    auto built = BuildSdist(*sources.package_path, work, output);
    if (!built.ok()) {
      return built.status();
    }
    local.insert(local.end(), built->begin(), built->end());
  }
  TY_RETURN_IF_ERROR(CheckDuplicateNames(local));
  auto checksum = Sha256OfFiles(local);
  if (!checksum.ok()) {
    return checksum.status();
  }
  const ObjectRef& prefix = **location;
  for (const fs::path& file : local) {
    ObjectRef destination{prefix.bucket,
                          UploadObjectName(prefix.name, *checksum, file.filename().string())};
    staged.uris.push_back(destination.Url());
    staged.uploads.push_back({file, std::move(destination)});
  }
  return staged;
}

}  // namespace trainyard::cli
