#include "vertex/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace trainyard::vertex::internal {
namespace {

using nlohmann::json;

std::string Where(std::string_view path) {
  return path.empty() ? "root" : std::string(path);
}

}  // namespace

void Problems::Add(std::string field, std::string description) {
  constexpr std::size_t kMaxKept = 50;  // a pathological body is not a million-line error
  if (violations_.size() < kMaxKept) {
    violations_.push_back({std::move(field), std::move(description)});
  }
}

Status Problems::ToStatus() const {
  if (violations_.empty()) {
    return Status();
  }
  return Status::InvalidArgument(violations_);
}

Reader::Reader(const json& object, std::string path, Problems& problems)
    : object_(object.is_object() ? &object : nullptr), path_(std::move(path)), problems_(problems) {
  if (object_ == nullptr) {
    problems_.Add(Where(path_),
                  fmt::format("Invalid value at '{}': expected an object", Where(path_)));
  }
}

std::string Reader::ChildPath(std::string_view name) const {
  return path_.empty() ? std::string(name) : path_ + "." + std::string(name);
}

const json* Reader::Take(std::string_view name) {
  known_.emplace_back(name);
  if (object_ == nullptr) {
    return nullptr;
  }
  const auto it = object_->find(name);
  if (it == object_->end() || it->is_null()) {
    return nullptr;
  }
  return &*it;
}

void Reader::Wrong(std::string_view name, std::string_view expected) {
  const std::string field = ChildPath(name);
  problems_.Add(field, fmt::format("Invalid value at '{}': expected {}", field, expected));
}

std::string Reader::String(std::string_view name) {
  const json* value = Take(name);
  if (value == nullptr) {
    return "";
  }
  if (!value->is_string()) {
    Wrong(name, "a string");
    return "";
  }
  return value->get<std::string>();
}

std::vector<std::string> Reader::Strings(std::string_view name) {
  std::vector<std::string> out;
  const json* value = Take(name);
  if (value == nullptr) {
    return out;
  }
  if (!value->is_array() ||
      !std::ranges::all_of(*value, [](const json& item) { return item.is_string(); })) {
    Wrong(name, "a list of strings");
    return out;
  }
  for (const json& item : *value) {
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::int64_t Reader::Int64(std::string_view name) {
  const json* value = Take(name);
  if (value == nullptr) {
    return 0;
  }
  if (value->is_number_integer()) {
    return value->get<std::int64_t>();
  }
  if (value->is_number_unsigned() &&
      value->get<std::uint64_t>() <=
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return value->get<std::int64_t>();
  }
  if (value->is_number_float()) {
    const double number = value->get<double>();
    if (std::isfinite(number) && std::trunc(number) == number && std::fabs(number) < 9.0e18) {
      return static_cast<std::int64_t>(number);
    }
  }
  if (value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    std::int64_t out = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    if (ec == std::errc() && ptr == end) {
      return out;
    }
  }
  Wrong(name, "an integer");
  return 0;
}

std::int32_t Reader::Int32(std::string_view name) {
  const std::int64_t value = Int64(name);
  if (value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::int32_t>::max()) {
    Wrong(name, "a 32-bit integer");
    return 0;
  }
  return static_cast<std::int32_t>(value);
}

double Reader::Double(std::string_view name) {
  const json* value = Take(name);
  if (value == nullptr) {
    return 0;
  }
  if (value->is_number()) {
    return value->get<double>();
  }
  Wrong(name, "a number");
  return 0;
}

bool Reader::Bool(std::string_view name) {
  const json* value = Take(name);
  if (value == nullptr) {
    return false;
  }
  if (!value->is_boolean()) {
    Wrong(name, "true or false");
    return false;
  }
  return value->get<bool>();
}

std::optional<Duration> Reader::DurationValue(std::string_view name) {
  const json* value = Take(name);
  if (value == nullptr) {
    return std::nullopt;
  }
  std::optional<Duration> out;
  if (value->is_string()) {
    out = ParseDuration(value->get<std::string>());
  }
  if (!out.has_value()) {
    Wrong(name, "a duration such as \"3600s\"");
  }
  return out;
}

std::map<std::string, std::string> Reader::StringMap(std::string_view name) {
  std::map<std::string, std::string> out;
  const json* value = Take(name);
  if (value == nullptr) {
    return out;
  }
  if (!value->is_object()) {
    Wrong(name, "an object of strings");
    return out;
  }
  for (const auto& [key, item] : value->items()) {
    if (!item.is_string()) {
      Wrong(std::string(name) + "." + key, "a string");
      continue;
    }
    out.emplace(key, item.get<std::string>());
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Reader::EnvVars(std::string_view name) {
  std::vector<std::pair<std::string, std::string>> out;
  const json* list = Array(name);
  if (list == nullptr) {
    return out;
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    Reader item((*list)[i], fmt::format("{}[{}]", ChildPath(name), i), problems_);
    std::string var = item.String("name");
    std::string text = item.String("value");
    item.Finish();
    if (var.empty()) {
      problems_.Add(item.ChildPath("name"), "An environment variable needs a name.");
    }
    out.emplace_back(std::move(var), std::move(text));
  }
  return out;
}

const json* Reader::Object(std::string_view name) {
  const json* value = Take(name);
  if (value != nullptr && !value->is_object()) {
    Wrong(name, "an object");
    return nullptr;
  }
  return value;
}

const json* Reader::Array(std::string_view name) {
  const json* value = Take(name);
  if (value != nullptr && !value->is_array()) {
    Wrong(name, "a list");
    return nullptr;
  }
  return value;
}

void Reader::Ignore(std::string_view name) {
  known_.emplace_back(name);
}

void Reader::Unsupported(std::string_view name, std::string_view why) {
  if (Take(name) != nullptr) {
    problems_.Add(ChildPath(name),
                  fmt::format("{} is not supported by trainyard: {}", ChildPath(name), why));
  }
}

void Reader::Finish() {
  if (object_ == nullptr) {
    return;
  }
  for (const auto& [key, value] : object_->items()) {
    if (std::ranges::find(known_, key) == known_.end()) {
      problems_.Add(Where(path_),
                    fmt::format("Invalid JSON payload received. Unknown name \"{}\" at '{}': "
                                "Cannot find field.",
                                key, Where(path_)));
    }
  }
}

Result<json> ParseBody(std::string_view text) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object()) {
    return Status::InvalidArgument(
        "Invalid JSON payload received: the request body is not a JSON object.");
  }
  return value;
}

}  // namespace trainyard::vertex::internal
