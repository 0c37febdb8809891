#include "server/storage_v1_rules.h"

#include <charconv>
#include <string>

#include <fmt/format.h>

namespace trainyard::server {
namespace {

std::optional<std::int64_t> Number(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

Status BadRange(std::string description) {
  return Status::InvalidArgument({{"Content-Range", std::move(description)}});
}

}  // namespace

Result<ChunkRange> ParseContentRange(std::string_view header, std::int64_t body_size) {
  if (header.empty()) {  // the whole object in one request
    return ChunkRange{.first = 0, .length = body_size, .total = body_size};
  }
  const Status bad = BadRange(
      fmt::format("Malformed Content-Range \"{}\"; expected \"bytes A-B/N\", \"bytes A-B/*\", "
                  "\"bytes A-*/N\", \"bytes A-*/*\", \"bytes */N\" or \"bytes */*\".",
                  header));
  const std::size_t slash = header.find('/');
  if (!header.starts_with("bytes ") || slash == std::string_view::npos) {
    return bad;
  }
  const std::string_view range = header.substr(6, slash - 6);
  const std::string_view total_text = header.substr(slash + 1);
  ChunkRange out{.length = body_size};
  if (total_text != "*") {
    out.total = Number(total_text);
    if (!out.total.has_value()) {
      return bad;
    }
  }
  if (range == "*") {
    return body_size == 0 ? Result<ChunkRange>(out) : bad;
  }
  const std::size_t dash = range.find('-');
  if (dash == std::string_view::npos) {
    return bad;
  }
  const std::optional<std::int64_t> first = Number(range.substr(0, dash));
  const std::string_view last_text = range.substr(dash + 1);
  if (!first.has_value()) {
    return bad;
  }
  out.first = first;
  if (last_text == "*") {  // the body runs to the object's end: its size, unless announced
    out.total = out.total.value_or(*first + body_size);
    return out;
  }
  const std::optional<std::int64_t> last = Number(last_text);
  if (!last.has_value() || *last < *first) {
    return bad;
  }
  if (*last - *first + 1 != body_size) {
    return BadRange(fmt::format("Content-Range \"{}\" announces {} bytes but the body has {}.",
                                header, *last - *first + 1, body_size));
  }
  return out;
}

}  // namespace trainyard::server
