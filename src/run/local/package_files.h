// The package files a staging request names, read once by the server into copies of its own
// (issue #31). A `gs://` package lies in a bucket its project's jobs write, so it is opened
// beneath the bucket's directory with no symbolic link followed at any depth (os/no_follow.h's
// `OpenBeneath`, as the bucket store reaches objects): a link planted as the object, or as a
// folder on its path, fails the job instead of making the server read what it points to. A
// local package is operator's ground (`--package-dir`) and is read by its path once its real
// path passed the check.
//
// The copies are what the package cache hashes and what the installer installs, so the bytes a
// cache key names are the bytes installed (a job changing its object in between changes
// neither), and pip never resolves a bucket path itself. They are the server's: a directory
// beside the request's target dir, only root may enter it (0700); the files are readable (0644),
// for pip under `--run-as`, whose view shows them read-only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "run/stager.h"

namespace trainyard::run::local {

// The local file for a package URI: `gs://bucket/object` is `<gcs_mount>/bucket/object`; an
// absolute path is itself. FAILED_PRECONDITION naming `uri` for anything else (a relative path,
// http://...), a gs:// URI with an empty bucket or object or a "." or ".." segment, or one given
// while there is no `gcs_mount`. Does not look at the file system.
Result<std::string> ResolvePackageUri(std::string_view uri, std::string_view gcs_mount);

// Copies of `request.package_uris`' files, removed with this object.
class PackageCopies {
 public:
  // Copies each package, in order, to `<target_dir>.sources/<index>/<its URI's last segment>`
  // (a file name pip reads a wheel's tags from), replacing what a crashed stage left there.
  // FAILED_PRECONDITION naming the URI for one `ResolvePackageUri` refuses, a package that does
  // not exist ("Package gs://b/p.tar.gz not found."), a symbolic link in a gs:// package's path
  // or anything but a regular file there, or, with `package_dirs`, a local package whose real
  // path is below none of them; INTERNAL when the copy cannot be written.
  static Result<PackageCopies> Make(const StageRequest& request,
                                    const std::optional<std::vector<std::string>>& package_dirs);

  PackageCopies(PackageCopies&& other) noexcept;
  PackageCopies& operator=(PackageCopies&&) = delete;
  PackageCopies(const PackageCopies&) = delete;
  PackageCopies& operator=(const PackageCopies&) = delete;
  ~PackageCopies();

  // Absolute paths of the copies, one per URI, in order.
  const std::vector<std::string>& files() const { return files_; }

 private:
  explicit PackageCopies(std::string dir) : dir_(std::move(dir)) {}

  std::string dir_;  // "" once moved from
  std::vector<std::string> files_;
};

}  // namespace trainyard::run::local
