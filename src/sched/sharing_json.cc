#include "sched/sharing_json.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace trainyard::sched {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxCount = 1'000'000;
constexpr std::int64_t kMaxMemoryMib = std::int64_t{1} << 40;  // 1 EiB
constexpr int kMaxPriority = 1000;
constexpr std::int64_t kMibPerGib = 1024;
constexpr std::int64_t kMibPerTib = kMibPerGib * 1024;
constexpr std::size_t kMaxClassName = 253;

// A whole number in [0, kMaxCount] at `field`, or a violation.
std::optional<int> Count(const json& value, const std::string& field,
                         std::vector<FieldViolation>& violations) {
  if (!value.is_number_integer()) {
    violations.push_back({field, fmt::format("expected a whole number, got {}", value.dump())});
    return std::nullopt;
  }
  const std::int64_t number = value.get<std::int64_t>();
  if (number < 0 || number > kMaxCount) {
    violations.push_back(
        {field, fmt::format("{} is out of range: expected 0 to {}", number, kMaxCount)});
    return std::nullopt;
  }
  return static_cast<int>(number);
}

}  // namespace

Result<std::int64_t> ParseMemoryMib(std::string_view text) {
  const auto bad = [&] {
    return Status::InvalidArgument(std::vector<FieldViolation>{
        {"memory",
         fmt::format("'{}' is not a memory quantity: expected a positive whole number with Mi, Gi "
                     "or Ti, as \"256Gi\"",
                     text)}});
  };
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  const std::string_view unit(end, text.data() + text.size() - end);
  if (error != std::errc() || end == text.data() || number <= 0) {
    return bad();
  }
  std::int64_t scale = 0;
  if (unit == "Mi") {
    scale = 1;
  } else if (unit == "Gi") {
    scale = kMibPerGib;
  } else if (unit == "Ti") {
    scale = kMibPerTib;
  } else {
    return bad();
  }
  if (number > kMaxMemoryMib / scale) {
    return bad();
  }
  return number * scale;
}

std::string MemoryQuantity(std::int64_t mib) {
  if (mib == 0) {
    return "0";  // a use or borrowed amount of none (a quota is positive)
  }
  if (mib % kMibPerTib == 0) {
    return fmt::format("{}Ti", mib / kMibPerTib);
  }
  if (mib % kMibPerGib == 0) {
    return fmt::format("{}Gi", mib / kMibPerGib);
  }
  return fmt::format("{}Mi", mib);
}

Result<ProjectQuota> DecodeProjectQuota(std::string_view project, std::string_view text,
                                        const catalog::Catalog& catalog) {
  const json body = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) {
    return Status::InvalidArgument(std::vector<FieldViolation>{
        {"", "expected a JSON object, as {\"accelerators\": {\"NVIDIA_TESLA_T4\": 4}}"}});
  }
  ProjectQuota quota{.project = std::string(project)};
  std::vector<FieldViolation> violations;
  for (const auto& [key, value] : body.items()) {
    if (key == "project") {
      if (!value.is_string() || value.get<std::string>() != project) {
        violations.push_back(
            {key, fmt::format("{} is not the project of the path, {}", value.dump(), project)});
      }
    } else if (key == "accelerators") {
      if (!value.is_object()) {
        violations.push_back({key, "expected an object of accelerator names to counts"});
        continue;
      }
      for (const auto& [name, count] : value.items()) {
        const std::string field = "accelerators." + name;
        if (catalog.FindAccelerator(name) == nullptr) {
          violations.push_back(
              {field, fmt::format("'{}' is not an accelerator type of the catalog (trainyard "
                                  "catalog accelerators)",
                                  name)});
          continue;
        }
        if (const std::optional<int> n = Count(count, field, violations)) {
          quota.accelerators[name] = *n;
        }
      }
    } else if (key == "cpus" || key == "jobs") {
      if (const std::optional<int> n = Count(value, key, violations)) {
        (key == "cpus" ? quota.cpus : quota.jobs) = *n;
      }
    } else if (key == "memory") {
      if (!value.is_string()) {
        violations.push_back(
            {key, fmt::format("expected a quantity such as \"256Gi\", got {}", value.dump())});
        continue;
      }
      Result<std::int64_t> mib = ParseMemoryMib(value.get<std::string>());
      if (mib.ok()) {
        quota.memory_mib = *mib;
      } else {
        violations.insert(violations.end(), mib.status().violations().begin(),
                          mib.status().violations().end());
      }
    } else if (key == "weight") {
      const std::optional<int> n = Count(value, key, violations);
      if (n && *n < 1) {
        violations.push_back({key, "a project's weight is at least 1"});
      } else if (n) {
        quota.weight = *n;
      }
    } else {
      violations.push_back(
          {key, "unknown field: expected project, accelerators, cpus, memory, jobs or weight"});
    }
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return quota;
}

std::string EncodeProjectQuota(const ProjectQuota& quota) {
  json out = {{"project", quota.project}, {"accelerators", json::object()}};
  for (const auto& [name, count] : quota.accelerators) {
    out["accelerators"][name] = count;
  }
  if (quota.cpus) {
    out["cpus"] = *quota.cpus;
  }
  if (quota.memory_mib) {
    out["memory"] = MemoryQuantity(*quota.memory_mib);
  }
  if (quota.jobs) {
    out["jobs"] = *quota.jobs;
  }
  out["weight"] = quota.weight;
  return out.dump();
}

Result<int> DecodePriorityClass(std::string_view name, std::string_view text) {
  std::vector<FieldViolation> violations;
  const bool name_ok = !name.empty() && name.size() <= kMaxClassName &&
                       std::ranges::all_of(name,
                                           [](char c) {
                                             return (c >= 'a' && c <= 'z') ||
                                                    (c >= '0' && c <= '9') || c == '-' || c == '.';
                                           }) &&
                       std::isalnum(static_cast<unsigned char>(name.front())) != 0 &&
                       std::isalnum(static_cast<unsigned char>(name.back())) != 0;
  if (!name_ok) {
    violations.push_back(
        {"name", fmt::format("'{}' is not a priority class name: lower-case letters, digits, '-' "
                             "and '.', starting and ending with a letter or digit",
                             name)});
  }
  const json body = json::parse(text, nullptr, /*allow_exceptions=*/false);
  int value = 0;
  if (!body.is_object()) {
    violations.push_back({"", "expected a JSON object, as {\"value\": 1000}"});
  } else {
    for (const auto& [key, item] : body.items()) {
      if (key != "value") {
        violations.push_back({key, "unknown field: expected value"});
      }
    }
    const json& item = body.contains("value") ? body["value"] : json();
    if (!item.is_number_integer() || item.get<std::int64_t>() < 0 ||
        item.get<std::int64_t>() > kMaxPriority) {
      violations.push_back({"value", fmt::format("expected a whole number from 0 to {} (ml v1's "
                                                 "scheduling.priority), got {}",
                                                 kMaxPriority, item.dump())});
    } else {
      value = item.get<int>();
    }
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return value;
}

std::string EncodeSharingPolicy(const SharingPolicy& policy) {
  json projects = json::array();
  for (const ProjectQuota& quota : policy.projects) {
    projects.push_back(json::parse(EncodeProjectQuota(quota)));
  }
  json classes = json::object();
  for (const auto& [name, value] : policy.priority_classes) {
    classes[name] = value;
  }
  return json{{"projects", std::move(projects)}, {"priorityClasses", std::move(classes)}}.dump();
}

}  // namespace trainyard::sched
