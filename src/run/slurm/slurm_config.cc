// ParseSlurmConfig: the operator's YAML file for the Slurm backend.
#include "run/slurm/slurm_config.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "model/yaml_bool.h"
#include "model/yaml_mapping.h"
#include "run/slurm/violations.h"

namespace trainyard::run::slurm {
namespace {

constexpr std::string_view kRootKeys =
    "partition, partitions_by_priority, gres_types, requeue, finished_jobs, ports, "
    "node_addresses, sbatch_options";
constexpr std::string_view kRuleKeys = "min_priority, partition";
constexpr std::string_view kPortKeys = "first, count";
constexpr std::int64_t kMaxPriority = 1000;  // scheduling.priority's range
constexpr std::int64_t kFirstUserPort = 1024;
constexpr std::int64_t kLastPort = 65535;

using internal::Violations;

bool HasSpace(std::string_view text) {
  return std::ranges::any_of(text, [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
}

// A whole decimal number with an optional minus sign, nothing around it.
std::optional<std::int64_t> ParseInteger(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::string Shown(const YAML::Node& value) {
  return value.IsScalar() ? fmt::format("\"{}\"", value.Scalar()) : "no scalar";
}

// A whole number in [min, max], or a violation at `path`.
std::optional<std::int64_t> IntegerIn(const YAML::Node& value, const std::string& path,
                                      std::int64_t min, std::int64_t max, Violations& out) {
  const std::optional<std::int64_t> number =
      value.IsScalar() ? ParseInteger(value.Scalar()) : std::nullopt;
  if (!number || *number < min || *number > max) {
    out.Add(path,
            fmt::format("must be a whole number from {} to {}; got {}", min, max, Shown(value)));
    return std::nullopt;
  }
  return number;
}

// A mapping of string to string, each key checked by `key_ok` and each value by `value_ok`.
template <typename KeyOk, typename ValueOk>
std::map<std::string, std::string, std::less<>> StringMap(const YAML::Node& value,
                                                          const std::string& path, KeyOk key_ok,
                                                          ValueOk value_ok, Violations& out) {
  std::map<std::string, std::string, std::less<>> map;
  if (value.IsNull()) {
    return map;
  }
  if (!value.IsMap()) {
    out.Add(path, "must be a mapping");
    return map;
  }
  for (const auto& entry : value) {
    if (!entry.first.IsScalar()) {
      out.Add(path, "has a key that is not a string");
      continue;
    }
    const std::string& key = entry.first.Scalar();
    const std::string field = fmt::format("{}.{}", path, key);
    if (map.contains(key)) {
      out.Add(field, "is repeated");
      continue;
    }
    if (!key_ok(key, field) || !value_ok(entry.second, field)) {
      continue;
    }
    map.emplace(key, entry.second.Scalar());
  }
  return map;
}

void ParseRules(const YAML::Node& value, SlurmConfig& config, Violations& out) {
  if (value.IsNull()) {
    return;
  }
  if (!value.IsSequence()) {
    out.Add("partitions_by_priority", "must be a list of {min_priority, partition} rules");
    return;
  }
  std::map<std::int64_t, std::size_t> seen;  // min_priority -> the rule that has it
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string path = fmt::format("partitions_by_priority[{}]", i);
    if (!value[i].IsMap()) {
      out.Add(path, fmt::format("must be a mapping with keys {}", kRuleKeys));
      continue;
    }
    std::map<std::string, YAML::Node> entries = model::YamlMappingEntries(
        value[i], path, {"min_priority", "partition"}, kRuleKeys, out.list);
    PartitionRule rule;
    bool ok = true;
    if (!entries.contains("min_priority")) {
      out.Add(path + ".min_priority", "is required");
      ok = false;
    } else if (const auto priority = IntegerIn(entries["min_priority"], path + ".min_priority", 0,
                                               kMaxPriority, out)) {
      if (const auto [first, added] = seen.emplace(*priority, i); !added) {
        out.Add(path + ".min_priority",
                fmt::format("{} is already the min_priority of partitions_by_priority[{}]",
                            *priority, first->second));
      }
      rule.min_priority = static_cast<std::int32_t>(*priority);
    } else {
      ok = false;
    }
    if (!entries.contains("partition")) {
      out.Add(path + ".partition", "is required");
      ok = false;
    } else if (const YAML::Node& name = entries["partition"];
               !name.IsScalar() || !IsSlurmName(name.Scalar())) {
      out.Add(path + ".partition",
              fmt::format("must be a Slurm partition name ([A-Za-z0-9_.-]+); got {}", Shown(name)));
      ok = false;
    } else {
      rule.partition = name.Scalar();
    }
    if (ok) {
      config.partitions_by_priority.push_back(std::move(rule));
    }
  }
}

void ParsePorts(const YAML::Node& value, SlurmConfig& config, Violations& out) {
  if (!value.IsMap()) {
    out.Add("ports", fmt::format("must be a mapping with keys {}", kPortKeys));
    return;
  }
  std::map<std::string, YAML::Node> entries =
      model::YamlMappingEntries(value, "ports", {"first", "count"}, kPortKeys, out.list);
  std::optional<std::int64_t> first = config.first_port;
  std::optional<std::int64_t> count = config.port_count;
  if (entries.contains("first")) {
    first = IntegerIn(entries["first"], "ports.first", kFirstUserPort, kLastPort, out);
  }
  if (entries.contains("count")) {
    count = IntegerIn(entries["count"], "ports.count", 1, kLastPort, out);
  }
  if (!first || !count) {
    return;
  }
  if (*first + *count - 1 > kLastPort) {
    out.Add("ports.count", fmt::format("{} ports from {} end at {}, past {}", *count, *first,
                                       *first + *count - 1, kLastPort));
    return;
  }
  config.first_port = static_cast<int>(*first);
  config.port_count = static_cast<int>(*count);
}

void ParseOptions(const YAML::Node& value, SlurmConfig& config, Violations& out) {
  if (value.IsNull()) {
    return;
  }
  if (!value.IsSequence()) {
    out.Add("sbatch_options", "must be a list of sbatch options (\"--account=ml\")");
    return;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string path = fmt::format("sbatch_options[{}]", i);
    if (!value[i].IsScalar() || !value[i].Scalar().starts_with("--") ||
        HasSpace(value[i].Scalar())) {
      out.Add(path,
              fmt::format("must be one long sbatch option (\"--account=ml\"), starting with -- "
                          "and without spaces or newlines; got {}",
                          Shown(value[i])));
      continue;
    }
    config.sbatch_options.push_back(value[i].Scalar());
  }
}

void ParseEntry(const std::string& key, const YAML::Node& value, const catalog::Catalog& catalog,
                SlurmConfig& config, Violations& out) {
  if (key == "partition") {
    if (value.IsNull()) {
      return;
    }
    if (!value.IsScalar() || (!value.Scalar().empty() && !IsSlurmName(value.Scalar()))) {
      out.Add(key, fmt::format("must be a Slurm partition name ([A-Za-z0-9_.-]+) or \"\"; got {}",
                               Shown(value)));
      return;
    }
    config.partition = value.Scalar();
  } else if (key == "partitions_by_priority") {
    ParseRules(value, config, out);
  } else if (key == "gres_types") {
    config.gres_types = StringMap(
        value, key,
        [&](const std::string& name, const std::string& field) {
          if (catalog.FindAccelerator(name) == nullptr) {
            out.Add(field, "is not an accelerator type the catalog knows");
            return false;
          }
          return true;
        },
        [&](const YAML::Node& type, const std::string& field) {
          if (!type.IsScalar() || !IsSlurmName(type.Scalar())) {
            out.Add(field,
                    fmt::format("must be a GRES type ([A-Za-z0-9_.-]+); got {}", Shown(type)));
            return false;
          }
          return true;
        },
        out);
  } else if (key == "requeue") {
    const std::optional<bool> requeue =
        value.IsScalar() ? model::ParseYamlBool(value.Scalar()) : std::nullopt;
    if (!requeue) {
      out.Add(key, fmt::format("must be true or false; got {}", Shown(value)));
      return;
    }
    config.requeue = *requeue;
  } else if (key == "finished_jobs") {
    const std::string word = value.IsScalar() ? value.Scalar() : "";
    constexpr std::array kAll{FinishedJobs::kSacct, FinishedJobs::kJobcomp, FinishedJobs::kNone};
    const auto* found = std::ranges::find_if(
        kAll, [&](FinishedJobs each) { return FinishedJobsName(each) == word; });
    if (found == kAll.end()) {
      out.Add(key, fmt::format("must be sacct, jobcomp or none; got {}", Shown(value)));
      return;
    }
    config.finished_jobs = *found;
  } else if (key == "ports") {
    ParsePorts(value, config, out);
  } else if (key == "node_addresses") {
    config.node_addresses = StringMap(
        value, key,
        [&](const std::string& name, const std::string& field) {
          if (!IsSlurmName(name)) {
            out.Add(field, "must be a Slurm node name ([A-Za-z0-9_.-]+)");
            return false;
          }
          return true;
        },
        [&](const YAML::Node& address, const std::string& field) {
          if (!address.IsScalar() || address.Scalar().empty() || HasSpace(address.Scalar())) {
            out.Add(field,
                    fmt::format("must be a host name or IP address; got {}", Shown(address)));
            return false;
          }
          return true;
        },
        out);
  } else if (key == "sbatch_options") {
    ParseOptions(value, config, out);
  }
}

Result<SlurmConfig> ParseRoot(const YAML::Node& root, const catalog::Catalog& catalog) {
  SlurmConfig config;
  if (root.IsNull()) {
    return config;
  }
  if (!root.IsMap()) {
    return Status::InvalidArgument(
        fmt::format("the Slurm configuration must be a YAML mapping with keys {}", kRootKeys));
  }
  Violations out;
  std::map<std::string, YAML::Node> entries =
      model::YamlMappingEntries(root, "",
                                {"partition", "partitions_by_priority", "gres_types", "requeue",
                                 "finished_jobs", "ports", "node_addresses", "sbatch_options"},
                                kRootKeys, out.list);
  for (const auto& [key, value] : entries) {
    ParseEntry(key, value, catalog, config, out);
  }
  if (!out.list.empty()) {
    return Status::InvalidArgument(std::move(out.list));
  }
  return config;
}

}  // namespace

bool IsSlurmName(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

Result<SlurmConfig> ParseSlurmConfig(std::string_view yaml_text, const catalog::Catalog& catalog) {
  try {
    return ParseRoot(YAML::Load(std::string(yaml_text)), catalog);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("the Slurm configuration is not valid YAML: line {}, column {}: {}",
                    e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

std::string PartitionFor(std::int32_t priority, const SlurmConfig& config) {
  const PartitionRule* best = nullptr;
  for (const PartitionRule& rule : config.partitions_by_priority) {
    if (rule.min_priority <= priority &&
        (best == nullptr || rule.min_priority > best->min_priority)) {
      best = &rule;
    }
  }
  return best != nullptr ? best->partition : config.partition;
}

std::string_view FinishedJobsName(FinishedJobs value) {
  switch (value) {
    case FinishedJobs::kSacct:
      return "sacct";
    case FinishedJobs::kJobcomp:
      return "jobcomp";
    case FinishedJobs::kNone:
      return "none";
  }
  return "sacct";
}

}  // namespace trainyard::run::slurm
