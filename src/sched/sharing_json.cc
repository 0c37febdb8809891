#include "sched/sharing_json.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/json_dialects.h"
#include "base/json_reader.h"

namespace trainyard::sched {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxCount = 1'000'000;
constexpr std::int64_t kMaxMemoryMib = std::int64_t{1} << 40;  // 1 EiB
constexpr int kMaxPriority = 1000;
constexpr std::int64_t kMibPerGib = 1024;
constexpr std::int64_t kMibPerTib = kMibPerGib * 1024;
constexpr std::size_t kMaxClassName = 253;

// What the messages say each member should have been: "expected a whole number, got "64"".
constexpr JsonNames kWholeNumber{.type = "a whole number"};
constexpr JsonNames kAcceleratorCounts{.type = "an object of accelerator names to counts"};
constexpr JsonNames kQuantity{.type = "a quantity such as \"256Gi\""};
constexpr JsonNames kPriority{.type =
                                  "a whole number from 0 to 1000 (ml v1's scheduling.priority)"};
static_assert(kMaxPriority == 1000, "kPriority names the range");

// A reader in trainyard's words whose problems become `violations`, each on the member it is
// about (the reader puts an unknown member's on its object; this API puts it on the member).
JsonReader ViolationReader(std::vector<FieldViolation>& violations) {
  return JsonReader(kTrainyardJsonDialect, [&violations](JsonError error) {
    violations.push_back({std::move(error.locus), std::move(error.message)});
  });
}

// The caller's own check at `path` failed, `why`.
void Invalid(JsonReader& reader, std::string_view path, const std::string& why) {
  reader.Report({.fault = JsonFault::kInvalid, .at = path, .parent = path, .detail = why});
}

// A whole number in [0, kMaxCount] at `path`, or nullopt after a violation.
std::optional<int> Count(JsonReader& reader, const json& value, std::string_view path) {
  std::int64_t number = 0;
  if (!reader.Int64(value, path, number, kWholeNumber)) {
    return std::nullopt;
  }
  if (number < 0 || number > kMaxCount) {
    Invalid(reader, path, fmt::format("{} is out of range: expected 0 to {}", number, kMaxCount));
    return std::nullopt;
  }
  return static_cast<int>(number);
}

// The reader reports in the order members are taken, unknown ones last; the API answers in the
// body's order (its members sorted by name), each violation with the member it is about.
void InBodyOrder(const json& body, std::vector<FieldViolation>& violations) {
  const auto member = [&body](const FieldViolation& v) {
    const std::string_view field = v.field;
    return body.contains(v.field) ? field : field.substr(0, field.find('.'));
  };
  std::ranges::stable_sort(violations, std::less<>(), member);
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
  JsonReader reader = ViolationReader(violations);
  JsonObject object(reader, body, "");
  // Taken in the order the unknown-field message lists them.
  if (const json* value = object.Take("project");
      value != nullptr &&
      (!value->is_string() || value->get_ref<const std::string&>() != project)) {
    Invalid(reader, "project",
            fmt::format("{} is not the project of the path, {}", value->dump(), project));
  }
  if (const json* accelerators = object.Object("accelerators", kAcceleratorCounts)) {
    for (const auto& [name, count] : accelerators->items()) {
      const std::string path = JsonChildPath("accelerators", name);
      if (catalog.FindAccelerator(name) == nullptr) {
        Invalid(reader, path,
                fmt::format("'{}' is not an accelerator type of the catalog (trainyard catalog "
                            "accelerators)",
                            name));
      } else if (const std::optional<int> n = Count(reader, count, path)) {
        quota.accelerators[name] = *n;
      }
    }
  }
  if (const json* value = object.Take("cpus")) {
    quota.cpus = Count(reader, *value, "cpus");
  }
  std::string memory;
  if (const json* value = object.Take("memory");
      value != nullptr && reader.String(*value, "memory", memory, kQuantity)) {
    Result<std::int64_t> mib = ParseMemoryMib(memory);
    if (mib.ok()) {
      quota.memory_mib = *mib;
    } else {
      violations.insert(violations.end(), mib.status().violations().begin(),
                        mib.status().violations().end());
    }
  }
  if (const json* value = object.Take("jobs")) {
    quota.jobs = Count(reader, *value, "jobs");
  }
  if (const json* value = object.Take("weight")) {
    const std::optional<int> n = Count(reader, *value, "weight");
    if (n && *n < 1) {
      Invalid(reader, "weight", "a project's weight is at least 1");
    } else if (n) {
      quota.weight = *n;
    }
  }
  object.Finish();
  if (!violations.empty()) {
    InBodyOrder(body, violations);
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
  if (!body.is_object()) {
    violations.push_back({"", "expected a JSON object, as {\"value\": 1000}"});
    return Status::InvalidArgument(std::move(violations));
  }
  JsonReader reader = ViolationReader(violations);
  JsonObject object(reader, body, "");
  const json* item = object.Take("value");
  object.Finish();  // unknown members first, then the value, as this API has always answered
  std::int64_t value = 0;
  if (item == nullptr) {
    reader.Report({.fault = JsonFault::kMissing,
                   .expected = JsonExpected::kInt64,
                   .at = "value",
                   .member = "value",
                   .names = kPriority});
  } else if (reader.Int64(*item, "value", value, kPriority) &&
             (value < 0 || value > kMaxPriority)) {
    reader.Report({.fault = JsonFault::kOutOfRange,
                   .expected = JsonExpected::kInt64,
                   .at = "value",
                   .value = item,
                   .names = kPriority});
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return static_cast<int>(value);
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
