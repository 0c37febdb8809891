#include "server/uri.h"

#include <optional>

#include <fmt/format.h>

namespace trainyard::server {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

// Decodes %XX escapes (and "+" as a space when `plus_is_space`); nullopt when an escape is
// malformed or the result holds a NUL.
std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) {
        return std::nullopt;
      }
      const int hi = HexValue(text[i + 1]);
      const int lo = HexValue(text[i + 2]);
      if (hi < 0 || lo < 0) {
        return std::nullopt;
      }
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    if (c == '\0') {
      return std::nullopt;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

Result<Target> ParseTarget(std::string_view target) {
  if (target.empty() || target.front() != '/') {
    return Status::InvalidArgument(
        fmt::format("The request target must be a path starting with \"/\"; got \"{}\".",
                    target.substr(0, 200)));
  }
  Target out;
  const std::size_t question = target.find('?');
  out.path = std::string(target.substr(0, question));
  if (question == std::string_view::npos) {
    return out;
  }
  std::string_view query = target.substr(question + 1);
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (item.empty()) {
      continue;
    }
    const std::size_t eq = item.find('=');
    auto name = PercentDecode(item.substr(0, eq), /*plus_is_space=*/true);
    auto value = PercentDecode(
        eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1), true);
    if (!name || !value) {
      return Status::InvalidArgument(fmt::format(
          "Malformed query parameter \"{}\": bad percent-escape or NUL.", item.substr(0, 200)));
    }
    out.query.emplace_back(std::move(*name), std::move(*value));
  }
  return out;
}

Result<std::string> DecodePathSegment(std::string_view segment, std::string_view what) {
  auto decoded = PercentDecode(segment, /*plus_is_space=*/false);
  if (!decoded) {
    return Status::InvalidArgument(
        fmt::format("The {} in the URL has a malformed percent-escape or a NUL character.", what));
  }
  if (decoded->empty() || *decoded == "." || *decoded == "..") {
    return Status::InvalidArgument(
        fmt::format("The {} in the URL must not be empty, \".\" or "
                    "\"..\".",
                    what));
  }
  if (decoded->find('/') != std::string::npos) {
    return Status::InvalidArgument(
        fmt::format("The {} in the URL must not contain \"/\" (%2F).", what));
  }
  return *std::move(decoded);
}

Result<std::string> DecodePathRest(std::string_view rest, std::string_view what) {
  auto decoded = PercentDecode(rest, /*plus_is_space=*/false);
  if (!decoded || decoded->empty()) {
    return Status::InvalidArgument(
        fmt::format("The {} in the URL is empty, or has a malformed percent-escape or a NUL "
                    "character.",
                    what));
  }
  return *std::move(decoded);
}

}  // namespace trainyard::server
