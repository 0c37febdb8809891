#include "store/object_names.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "base/utf8.h"

namespace trainyard::store::internal {
namespace {

constexpr std::size_t kMaxObjectName = 1024;  // bytes, as GCS
constexpr std::size_t kMaxSegment = 255;      // NAME_MAX of Linux file systems

Status BadObject(std::string description) {
  return Status::InvalidArgument({{"object", std::move(description)}});
}

bool IsBucketChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

}  // namespace

Status CheckBucketName(std::string_view name) {
  if (name.size() < 3 || name.size() > 63) {
    return Status::InvalidArgument({{"bucket", fmt::format("Invalid bucket name: '{}': a bucket "
                                                           "name has 3 to 63 characters.",
                                                           name.substr(0, 100))}});
  }
  for (const char c : name) {
    if (!IsBucketChar(c)) {
      return Status::InvalidArgument(
          {{"bucket", fmt::format("Invalid bucket name: '{}': only lowercase letters, digits, "
                                  "'-', '_' and '.' are allowed.",
                                  name)}});
    }
  }
  if (!IsAlnum(name.front()) || !IsAlnum(name.back())) {
    return Status::InvalidArgument(
        {{"bucket", fmt::format("Invalid bucket name: '{}': it must start and end with a "
                                "letter or digit.",
                                name)}});
  }
  return {};
}

Status CheckObjectName(std::string_view bucket, std::string_view name, NameUse use) {
  if (name.empty() || name.size() > kMaxObjectName) {
    return BadObject(
        fmt::format("An object name has 1 to {} bytes; got {}.", kMaxObjectName, name.size()));
  }
  if (name.find_first_of(std::string_view("\0\r\n", 3)) != std::string_view::npos) {
    return BadObject("An object name must not contain NUL, CR or LF.");
  }
  if (!IsValidUtf8(name)) {
    return BadObject("An object name must be valid UTF-8.");
  }
  if (name.front() == '/') {
    return BadObject("An object name must not start with \"/\".");
  }
  bool unrepresentable = false;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string_view::npos) {
      end = name.size();
    }
    const std::string_view segment = name.substr(start, end - start);
    if (segment == "." || segment == "..") {
      return BadObject("An object name must not have a \".\" or \"..\" segment.");
    }
    if (segment.size() > kMaxSegment) {
      return BadObject(fmt::format(
          "Each \"/\"-separated part of an object name has at most {} bytes.", kMaxSegment));
    }
    unrepresentable = unrepresentable || segment.empty();  // "a//b" or a trailing "/"
    start = end + 1;
  }
  if (!unrepresentable) {
    return {};
  }
  if (use == NameUse::kRead) {
    return NoSuchObject(bucket, name);
  }
  return BadObject(
      "An object name here must not end with \"/\" or contain \"//\": objects are files, and "
      "folders are implied by the names of the objects in them.");
}

Status NoSuchObject(std::string_view bucket, std::string_view name) {
  return Status::NotFound(fmt::format("No such object: {}/{}", bucket, name));
}

}  // namespace trainyard::store::internal
