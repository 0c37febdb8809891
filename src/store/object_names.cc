#include "store/object_names.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

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

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF).
bool IsUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t extra = 0;
    std::uint32_t code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0U) == 0xC0U) {
      extra = 1;
      code = c & 0x1FU;
    } else if ((c & 0xF0U) == 0xE0U) {
      extra = 2;
      code = c & 0x0FU;
    } else if ((c & 0xF8U) == 0xF0U) {
      extra = 3;
      code = c & 0x07U;
    } else {
      return false;
    }
    if (i + extra >= text.size()) {
      return false;  // truncated sequence
    }
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0U) != 0x80U) {
        return false;
      }
      code = (code << 6) | (next & 0x3FU);
    }
    constexpr std::uint32_t kMinimum[] = {0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[extra] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
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
  if (!IsUtf8(name)) {
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
