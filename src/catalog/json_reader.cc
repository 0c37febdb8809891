#include "catalog/json_reader.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/json_dialects.h"

namespace trainyard::catalog::internal {

Result<nlohmann::json> ParseJson(std::string_view file, std::string_view text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(fmt::format("{}: malformed JSON: {}", file, e.what()));
  }
}

std::string FlagSpelling(std::string_view enum_name) {
  std::string flag;
  flag.reserve(enum_name.size());
  for (const char c : enum_name) {
    flag += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return flag;
}

Status EntryError(std::string_view where, std::string_view problem) {
  return Status::InvalidArgument(fmt::format("{}: {}", where, problem));
}

ObjectReader::ObjectReader(const nlohmann::json& object, std::string where)
    : where_(std::move(where)),
      reader_(kCatalogJsonDialect, [this](const JsonError& error) { Fail(error.message); }),
      object_(reader_, object, "") {}

void ObjectReader::Name(std::string_view name) {
  if (!name.empty()) {
    where_ += fmt::format(" (\"{}\")", name);
  }
}

void ObjectReader::Fail(std::string_view problem) {
  if (error_.empty()) {
    error_ = std::string(problem);
  }
}

void ObjectReader::FailField(std::string_view key, std::string_view problem) {
  Fail(fmt::format("field \"{}\": {}", key, problem));
}

std::string ObjectReader::ReadString(const nlohmann::json& value, std::string_view key) {
  std::string out;
  if (reader_.String(value, key, out) && out.empty()) {
    FailField(key, "expected a non-empty string");
  }
  return out;
}

std::string ObjectReader::String(std::string_view key) {
  const nlohmann::json* value = object_.Take(key, /*required=*/true);
  return value == nullptr ? "" : ReadString(*value, key);
}

std::string ObjectReader::OptionalString(std::string_view key) {
  const nlohmann::json* value = object_.Take(key);
  return value == nullptr ? "" : ReadString(*value, key);
}

int ObjectReader::Int(std::string_view key, int min_value) {
  const nlohmann::json* value = object_.Take(key, /*required=*/true);
  std::int64_t number = 0;
  if (value == nullptr || !reader_.Int64(*value, key, number)) {
    return 0;
  }
  if (number < min_value || number > std::numeric_limits<int>::max()) {
    FailField(key, fmt::format("{} is out of range (at least {})", number, min_value));
    return 0;
  }
  return static_cast<int>(number);
}

int ObjectReader::OptionalInt(std::string_view key, int min_value) {
  return object_.Take(key) == nullptr ? 0 : Int(key, min_value);
}

double ObjectReader::Number(std::string_view key) {
  const nlohmann::json* value = object_.Take(key, /*required=*/true);
  double number = 0;
  if (value == nullptr || !reader_.Number(*value, key, number)) {
    return 0;
  }
  if (number < 0) {
    FailField(key, "expected a number >= 0");
    return 0;
  }
  return number;
}

bool ObjectReader::ReadBool(const nlohmann::json& value, std::string_view key) {
  bool out = false;
  reader_.Bool(value, key, out);
  return out;
}

bool ObjectReader::Bool(std::string_view key) {
  const nlohmann::json* value = object_.Take(key, /*required=*/true);
  return value != nullptr && ReadBool(*value, key);
}

bool ObjectReader::OptionalBool(std::string_view key, bool fallback) {
  const nlohmann::json* value = object_.Take(key);
  return value == nullptr ? fallback : ReadBool(*value, key);
}

std::vector<std::string> ObjectReader::StringList(std::string_view key, bool required) {
  std::vector<std::string> out;
  const nlohmann::json* value = object_.Take(key, required);
  if (value == nullptr || !reader_.StringList(*value, key, out)) {
    return {};
  }
  if (std::ranges::any_of(out, [](const std::string& item) { return item.empty(); })) {
    FailField(key, "expected an array of non-empty strings");
    return {};
  }
  return out;
}

std::vector<int> ObjectReader::CountList(std::string_view key, bool allow_empty) {
  std::vector<int> out;
  const nlohmann::json* value = object_.Take(key, /*required=*/true);
  if (value == nullptr) {
    return out;
  }
  if (!value->is_array()) {
    FailField(key, "expected an array of counts");
    return out;
  }
  for (const auto& item : *value) {
    if (!item.is_number_integer() || item.get<std::int64_t>() <= 0 ||
        item.get<std::int64_t>() > std::numeric_limits<int>::max() ||
        (!out.empty() && item.get<std::int64_t>() <= out.back())) {
      FailField(key, "expected positive counts in increasing order");
      return {};
    }
    out.push_back(item.get<int>());
  }
  if (out.empty() && !allow_empty) {
    FailField(key, "expected at least one count");
  }
  return out;
}

const nlohmann::json* ObjectReader::Array(std::string_view key, bool required) {
  const nlohmann::json* value = object_.Take(key, required);
  return value != nullptr && reader_.Array(*value, key) ? value : nullptr;
}

const nlohmann::json* ObjectReader::Object(std::string_view key) {
  const nlohmann::json* value = object_.Take(key, /*required=*/true);
  return value != nullptr && reader_.Object(*value, key) ? value : nullptr;
}

Status ObjectReader::Finish() {
  object_.Finish();  // unknown members, reported only when nothing else was
  if (!error_.empty()) {
    return EntryError(where_, error_);
  }
  return Status();
}

Status ForEachEntry(std::string_view file, const nlohmann::json& doc, std::string_view array_key,
                    const std::function<void(ObjectReader&)>& read_entry) {
  ObjectReader top(doc, std::string(file));
  top.OptionalString("notes");
  const nlohmann::json* entries = top.Array(array_key, /*required=*/true);
  TY_RETURN_IF_ERROR(top.Finish());
  for (std::size_t i = 0; i < entries->size(); ++i) {
    ObjectReader entry((*entries)[i], fmt::format("{}: {}[{}]", file, array_key, i));
    read_entry(entry);
    TY_RETURN_IF_ERROR(entry.Finish());
  }
  return Status();
}

}  // namespace trainyard::catalog::internal
