#include "vertex/spec_document.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainyard::vertex {
namespace {

using nlohmann::ordered_json;

// The body is not parsed as a whole: an order-keeping document (ordered_json) finds each key of
// an object by a linear search, so 100,000 labels cost 5 * 10^9 comparisons (20 s, issue #31).
// Instead one pass finds the top-level members' texts, and only the kept ones are parsed.

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::size_t SkipSpace(std::string_view text, std::size_t i) {
  while (i < text.size() && IsSpace(text[i])) {
    ++i;
  }
  return i;
}

// Past the string whose opening quote is at `i`.
std::size_t SkipString(std::string_view text, std::size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return text.size();
}

// Past the value that starts at `i`: a string; an object or array, its brackets counted and its
// strings skipped; or a scalar, up to the ',' or '}' that follows it.
std::size_t SkipValue(std::string_view text, std::size_t i) {
  std::size_t depth = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      i = SkipString(text, i);
      if (depth == 0) {
        return i;
      }
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) {
        return i;
      }
      if (--depth == 0) {
        return i + 1;
      }
    } else if (c == ',' && depth == 0) {
      return i;
    }
    ++i;
  }
  return i;
}

// The top-level members of the JSON object `text`, each its key (unescaped) and its value's text,
// in order; empty when `text` is not an object.
std::vector<std::pair<std::string, std::string_view>> TopLevelMembers(std::string_view text) {
  std::vector<std::pair<std::string, std::string_view>> out;
  std::size_t i = SkipSpace(text, 0);
  if (i == text.size() || text[i] != '{') {
    return out;
  }
  i = SkipSpace(text, i + 1);
  while (i < text.size() && text[i] == '"') {
    const std::size_t key_end = SkipString(text, i);
    const nlohmann::json key = nlohmann::json::parse(text.substr(i, key_end - i), nullptr, false);
    i = SkipSpace(text, key_end);
    if (!key.is_string() || i == text.size() || text[i] != ':') {
      return {};
    }
    const std::size_t start = SkipSpace(text, i + 1);
    const std::size_t end = SkipValue(text, start);
    out.emplace_back(key.get<std::string>(), text.substr(start, end - start));
    i = SkipSpace(text, end);
    if (i < text.size() && text[i] == ',') {
      i = SkipSpace(text, i + 1);
    }
  }
  return out;
}

}  // namespace

std::string SpecDocument(std::string_view body, std::span<const std::string_view> members,
                         bool unwrap) {
  const std::vector<std::pair<std::string, std::string_view>> found = TopLevelMembers(body);
  ordered_json document = ordered_json::object();
  for (const std::string_view member : members) {
    const auto last = std::find_if(found.rbegin(), found.rend(),
                                   [member](const auto& pair) { return pair.first == member; });
    if (last == found.rend()) {
      continue;
    }
    ordered_json value = ordered_json::parse(last->second, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded() || value.is_null()) {
      continue;
    }
    if (unwrap) {
      document = value.is_object() ? std::move(value) : ordered_json::object();
    } else {
      document[std::string(member)] = std::move(value);
    }
  }
  return document.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace trainyard::vertex
