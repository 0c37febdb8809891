#include "cli/packages.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <openssl/evp.h>

#include "cli/sdist.h"

namespace trainyard::cli {
namespace {

namespace fs = std::filesystem;

struct DigestDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

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
  std::unique_ptr<EVP_MD_CTX, DigestDeleter> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return Status::Internal("Cannot initialise SHA-256");
  }
  std::array<char, 65536> buffer{};
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      return Status::InvalidArgument(
          fmt::format("Unable to read file [{}]: {}", file.string(), std::strerror(errno)));
    }
    while (in) {
      in.read(buffer.data(), buffer.size());
      if (in.gcount() > 0) {
        EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
      }
    }
    if (in.bad()) {
      return Status::InvalidArgument(fmt::format("Unable to read file [{}]", file.string()));
    }
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx.get(), digest.data(), &size);
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += fmt::format("{:02x}", digest[i]);
  }
  return hex;
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
