#include "base/path.h"

namespace trainyard {

bool IsNormalisedAbsolutePath(std::string_view path) {
  if (!path.starts_with('/')) {
    return false;
  }
  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) {
      end = path.size();
    }
    const std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") {
      return path == "/";
    }
    start = end + 1;
  }
  return true;
}

bool IsBelowDirectory(std::string_view path, std::string_view dir) {
  while (dir.size() > 1 && dir.ends_with('/')) {
    dir.remove_suffix(1);
  }
  if (dir == "/") {
    return path.size() > 1 && path.starts_with('/');
  }
  return path.size() > dir.size() + 1 && path.starts_with(dir) && path[dir.size()] == '/';
}

}  // namespace trainyard
