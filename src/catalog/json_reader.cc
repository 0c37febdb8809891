#include "catalog/json_reader.h"

#include <cctype>
#include <cstdint>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
    : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) {
    Fail(fmt::format("expected a JSON object, got {}", object_.type_name()));
  }
}

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

const nlohmann::json* ObjectReader::Find(std::string_view key, bool required) {
  if (!object_.is_object()) {
    return nullptr;
  }
  read_.emplace(key);
  const auto it = object_.find(key);
  if (it == object_.end()) {
    if (required) {
      FailField(key, "missing");
    }
    return nullptr;
  }
  return &*it;
}

std::string ObjectReader::String(std::string_view key) {
  const nlohmann::json* value = Find(key, /*required=*/true);
  if (value == nullptr) {
    return "";
  }
  if (!value->is_string() || value->get_ref<const std::string&>().empty()) {
    FailField(key, "expected a non-empty string");
    return "";
  }
  return value->get<std::string>();
}

std::string ObjectReader::OptionalString(std::string_view key) {
  const nlohmann::json* value = Find(key, /*required=*/false);
  if (value == nullptr) {
    return "";
  }
  return String(key);
}

int ObjectReader::Int(std::string_view key, int min_value) {
  const nlohmann::json* value = Find(key, /*required=*/true);
  if (value == nullptr) {
    return 0;
  }
  if (!value->is_number_integer()) {
    FailField(key, "expected an integer");
    return 0;
  }
  const auto number = value->get<std::int64_t>();
  if (number < min_value || number > std::numeric_limits<int>::max()) {
    FailField(key, fmt::format("{} is out of range (at least {})", number, min_value));
    return 0;
  }
  return static_cast<int>(number);
}

int ObjectReader::OptionalInt(std::string_view key, int min_value) {
  return Find(key, /*required=*/false) == nullptr ? 0 : Int(key, min_value);
}

double ObjectReader::Number(std::string_view key) {
  const nlohmann::json* value = Find(key, /*required=*/true);
  if (value == nullptr) {
    return 0;
  }
  if (!value->is_number() || value->get<double>() < 0) {
    FailField(key, "expected a number >= 0");
    return 0;
  }
  return value->get<double>();
}

bool ObjectReader::Bool(std::string_view key) {
  const nlohmann::json* value = Find(key, /*required=*/true);
  if (value == nullptr) {
    return false;
  }
  if (!value->is_boolean()) {
    FailField(key, "expected true or false");
    return false;
  }
  return value->get<bool>();
}

bool ObjectReader::OptionalBool(std::string_view key, bool fallback) {
  return Find(key, /*required=*/false) == nullptr ? fallback : Bool(key);
}

std::vector<std::string> ObjectReader::StringList(std::string_view key, bool required) {
  std::vector<std::string> out;
  const nlohmann::json* value = Find(key, required);
  if (value == nullptr) {
    return out;
  }
  if (!value->is_array()) {
    FailField(key, "expected an array of strings");
    return out;
  }
  for (const auto& item : *value) {
    if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
      FailField(key, "expected an array of non-empty strings");
      return {};
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<int> ObjectReader::CountList(std::string_view key, bool allow_empty) {
  std::vector<int> out;
  const nlohmann::json* value = Find(key, /*required=*/true);
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
  const nlohmann::json* value = Find(key, required);
  if (value != nullptr && !value->is_array()) {
    FailField(key, "expected an array");
    return nullptr;
  }
  return value;
}

const nlohmann::json* ObjectReader::Object(std::string_view key) {
  const nlohmann::json* value = Find(key, /*required=*/true);
  if (value != nullptr && !value->is_object()) {
    FailField(key, "expected an object");
    return nullptr;
  }
  return value;
}

Status ObjectReader::Finish() const {
  if (!error_.empty()) {
    return EntryError(where_, error_);
  }
  for (const auto& item : object_.items()) {
    if (!read_.contains(item.key())) {
      return EntryError(where_, fmt::format("unknown field \"{}\"", item.key()));
    }
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
