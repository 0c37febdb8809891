#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "plan/cluster_plan.h"

namespace trainyard::plan {
namespace {

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> segments;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view segment = path.substr(0, slash);
    if (!segment.empty()) {  // "gs://b//p/" is "gs://b/p"
      segments.push_back(segment);
    }
    if (slash == std::string_view::npos) {
      break;
    }
    path.remove_prefix(slash + 1);
  }
  return segments;
}

}  // namespace

Result<GcsPath> SplitGcsUri(std::string_view uri) {
  if (!uri.starts_with(kGcsScheme)) {
    return Status::InvalidArgument(fmt::format("'{}' is not a gs:// URI", uri));
  }
  const std::string_view rest = uri.substr(kGcsScheme.size());
  if (rest.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument(fmt::format("'{}' contains a NUL character", uri));
  }
  if (rest.empty() || rest.front() == '/') {
    return Status::InvalidArgument(fmt::format("'{}' names no bucket", uri));
  }
  const std::vector<std::string_view> segments = Segments(rest);
  GcsPath out{.bucket = std::string(segments.front()), .path = ""};
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (segments[i] == "." || segments[i] == "..") {
      return Status::InvalidArgument(fmt::format(
          "'{}' has a '{}' segment; paths may not leave their bucket", uri, segments[i]));
    }
    if (i > 0) {
      out.path += out.path.empty() ? "" : "/";
      out.path += segments[i];
    }
  }
  return out;
}

// Bucket b lives in <gcs_mount>/b and object p in <gcs_mount>/b/p (the bucket store's layout,
// like Vertex AI's /gcs/), so a `gs://` job dir becomes a directory plain file IO can use.
Result<std::string> LocalPathOf(std::string_view uri, std::string_view gcs_mount) {
  if (!uri.starts_with(kGcsScheme)) {
    return std::string(uri);
  }
  Result<GcsPath> split = SplitGcsUri(uri);
  if (!split.ok()) {
    return split.status();
  }
  if (gcs_mount.empty()) {
    return Status::FailedPrecondition(
        fmt::format("'{}' is a Cloud Storage URI but this server has no local bucket store", uri));
  }
  while (gcs_mount.size() > 1 && gcs_mount.back() == '/') {
    gcs_mount.remove_suffix(1);
  }
  std::string path(gcs_mount);
  for (const std::string& part : {split->bucket, split->path}) {
    if (part.empty()) {
      continue;
    }
    if (!path.ends_with('/')) {
      path += '/';
    }
    path += part;
  }
  return path;
}

}  // namespace trainyard::plan
