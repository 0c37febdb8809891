#include "vertex/json_reader.h"

#include "base/json_dialects.h"

namespace trainyard::vertex::internal {

using nlohmann::json;

Problems::Problems()
    : reader_(kVertexJsonDialect,
              [this](JsonError error) { Add(std::move(error.field), std::move(error.message)); }) {}

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
    const std::string at = ChildPath(name);
    reader().Report({.fault = JsonFault::kInvalid,
                     .at = at,
                     .parent = path(),
                     .value = value,
                     .detail = "a duration such as \"3600s\""});
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
    Reader item((*list)[i], JsonIndexPath(ChildPath(name), i), problems_);
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

Result<json> ParseBody(std::string_view text) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object()) {
    return Status::InvalidArgument(
        "Invalid JSON payload received: the request body is not a JSON object.");
  }
  return value;
}

}  // namespace trainyard::vertex::internal
