// Staging of a training job's Python packages, as gcloud 528 does it
// (command_lib/ml_engine/jobs_prep.py UploadPythonPackages/GetStagingLocation, uploads.py):
//   * `--packages` entries that are gs:// objects are used as they are; local files, and the
//     sdist built from `--package-path`, are uploaded.
//   * The staging prefix is gs://<--staging-bucket>/<job id>, else <--job-dir>/packages.
//   * Uploaded objects are named <prefix>/<sha256 hex over the contents of all local files, in
//     order>/<file basename>.
//   * `packageUris` lists the gs:// entries first, then the uploads in order.
// Uploading itself is the REST client's job; this only decides what goes where.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cli/commands/flag_values.h"
#include "cli/local/temp_dir.h"

namespace trainyard::cli {

struct PackageUpload {
  std::filesystem::path local_path;
  ObjectRef destination;
};

// What `StagePackages` decided. Owns the temporary directory holding a built sdist, so keep it
// until the uploads are done.
struct StagedPackages {
  std::vector<std::string> uris;  // trainingInput.packageUris
  std::vector<PackageUpload> uploads;
  std::optional<TempDir> build_dir;
};

struct PackageSources {
  std::string job_id;
  std::vector<std::string> packages;        // --packages
  std::optional<std::string> package_path;  // --package-path
  std::optional<std::string> staging_bucket;
  std::optional<ObjectRef> job_dir;
};

// gcloud's GetStagingLocation; nullopt when neither --staging-bucket nor --job-dir is given.
// Pure.
Result<std::optional<ObjectRef>> StagingLocation(const PackageSources& sources);

// "<prefix>/<checksum>/<basename>"; an empty prefix is left out. Pure.
std::string UploadObjectName(std::string_view prefix, std::string_view checksum_hex,
                             std::string_view basename);

// Hex SHA-256 over the concatenated contents of `files`.
Result<std::string> Sha256OfFiles(const std::vector<std::filesystem::path>& files);

// Builds `--package-path` (sdist.h), checks the local files and names their destinations.
Result<StagedPackages> StagePackages(const PackageSources& sources);

}  // namespace trainyard::cli
