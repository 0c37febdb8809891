// Builds a Python source distribution from a `--package-path` directory the way gcloud 528 does
// (command_lib/ml_engine/jobs_prep.py BuildPackages): `setup.py sdist` runs in the *parent* of
// the package directory; when that parent has no setup.py, a temporary one naming the package
// (`<basename>-0.0.0.tar.gz`) is written there for the build and removed afterwards.
// Runs /usr/bin/python3 with an argument vector (no shell). Not thread-safe for one directory.
#pragma once

#include <filesystem>
#include <vector>

#include "base/status.h"

namespace trainyard::cli {

// The interpreter used for `setup.py`.
inline constexpr const char* kPython = "/usr/bin/python3";

// Builds the package at `package_path` into `output_dir`, keeping setuptools' scratch files in
// `work_dir`; returns the paths of the files built, sorted. Errors carry gcloud's messages.
Result<std::vector<std::filesystem::path>> BuildSdist(const std::filesystem::path& package_path,
                                                      const std::filesystem::path& work_dir,
                                                      const std::filesystem::path& output_dir);

}  // namespace trainyard::cli
