#include "run/view_paths.h"

#include <algorithm>
#include <filesystem>
#include <utility>

namespace trainyard::run {
namespace {

// Lexically normal and absolute, "" for a relative or empty path.
std::string Normal(const std::string& path) {
  if (!path.starts_with('/')) {
    return "";
  }
  std::string normal = std::filesystem::path(path).lexically_normal().string();
  while (normal.size() > 1 && normal.ends_with('/')) {
    normal.pop_back();
  }
  return normal;
}

// Whether `path` is `dir` or lies below it (both normal).
bool AtOrBelow(std::string_view path, std::string_view dir) {
  if (dir == "/") {
    return true;
  }
  return path == dir ||
         (path.starts_with(dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

std::vector<std::string> SortedNormal(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    if (std::string normal = Normal(path); !normal.empty()) {
      out.push_back(std::move(normal));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool AtOrBelowAny(std::string_view path, const std::vector<std::string>& dirs) {
  return std::any_of(dirs.begin(), dirs.end(),
                     [&](const std::string& dir) { return AtOrBelow(path, dir); });
}

}  // namespace

std::vector<std::string> JobPrivateDirs(std::string_view home) {
  std::vector<std::string> dirs = {"/tmp", "/var/tmp", "/dev/shm"};
  if (!home.empty()) {
    dirs.emplace_back(home);
  }
  return dirs;
}

FileView NormaliseView(const FileView& view) {
  FileView out;
  out.hidden = Normal(view.hidden);
  out.private_root = Normal(view.private_root);
  // Sorted, a directory comes before what lies below it ("/a" < "/a/b"; "/a-b" sorts between
  // them but is not below "/a", so each candidate is checked against every kept one).
  for (std::string& path : SortedNormal(view.writable)) {
    if (!AtOrBelowAny(path, out.writable)) {
      out.writable.push_back(std::move(path));
    }
  }
  for (std::string& path : SortedNormal(view.readable)) {
    if (!AtOrBelowAny(path, out.writable)) {
      out.readable.push_back(std::move(path));
    }
  }
  for (std::string& dir : SortedNormal(view.private_dirs)) {
    // Below a shown path or the hidden directory, an empty directory would itself be hidden by
    // the mount above it; what is shown below a private directory is shown again inside it
    // (run/local/sandbox.h).
    if (dir == "/" || (!out.hidden.empty() && AtOrBelow(dir, out.hidden)) ||
        AtOrBelowAny(dir, out.private_dirs) || AtOrBelowAny(dir, out.writable) ||
        AtOrBelowAny(dir, out.readable)) {
      continue;
    }
    out.private_dirs.push_back(std::move(dir));
  }
  return out;
}

}  // namespace trainyard::run
