// ParseClusterFile: an operator's description of the nodes, in place of detection.
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "model/yaml_bool.h"
#include "model/yaml_mapping.h"
#include "sched/inventory.h"
#include "sched/node_labels.h"

namespace trainyard::sched {
namespace {

constexpr std::string_view kNodeKeys = "name, cpus, memory, accelerators, emulated, labels";

struct Violations {
  std::vector<FieldViolation> list;
  void Add(std::string field, std::string description) {
    list.push_back(FieldViolation{std::move(field), std::move(description)});
  }
};

// A whole decimal number, no sign, nothing around it.
std::optional<std::int64_t> ParseCount(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text.front() == '-' || ec != std::errc() ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// "128Gi", "512Mi", "1Ti" or "4096" (MiB).
std::optional<std::int64_t> ParseMemoryMib(std::string_view text) {
  std::int64_t scale = 1;
  if (text.ends_with("Mi")) {
    text.remove_suffix(2);
  } else if (text.ends_with("Gi")) {
    scale = 1024;
    text.remove_suffix(2);
  } else if (text.ends_with("Ti")) {
    scale = std::int64_t{1024} * 1024;
    text.remove_suffix(2);
  }
  const std::optional<std::int64_t> value = ParseCount(text);
  if (!value || *value > std::numeric_limits<std::int64_t>::max() / scale) {
    return std::nullopt;
  }
  return *value * scale;
}

std::optional<std::int64_t> PositiveCount(const YAML::Node& value, const std::string& path,
                                          Violations& out) {
  const std::optional<std::int64_t> count =
      value.IsScalar() ? ParseCount(value.Scalar()) : std::nullopt;
  if (!count || *count <= 0 || *count > std::numeric_limits<int>::max()) {
    out.Add(path, fmt::format("must be a positive whole number; got {}",
                              value.IsScalar() ? value.Scalar() : "no number"));
    return std::nullopt;
  }
  return count;
}

void ParseAccelerators(const YAML::Node& value, const std::string& path, bool emulated,
                       const catalog::Catalog& catalog, Node& node, Violations& out) {
  if (value.IsNull()) {
    return;
  }
  if (!value.IsMap()) {
    out.Add(path, "must be a mapping of accelerator type to count");
    return;
  }
  for (const auto& entry : value) {
    const std::string type = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string field = fmt::format("{}.{}", path, type);
    const catalog::Accelerator* accelerator = catalog.FindAccelerator(type);
    if (accelerator == nullptr) {
      out.Add(field, "is not an accelerator type the catalog knows");
      continue;
    }
    if (node.CountOf(type) > 0) {
      out.Add(field, "is repeated");
      continue;
    }
    const std::optional<std::int64_t> count = PositiveCount(entry.second, field, out);
    for (std::int64_t i = 0; count && i < *count; ++i) {
      node.devices.push_back(Device{.index = static_cast<int>(node.devices.size()),
                                    .accelerator = accelerator->name,
                                    .model = emulated ? "emulated" : accelerator->display_name,
                                    .emulated = emulated});
    }
  }
}

void ParseLabels(const YAML::Node& value, const std::string& path, Node& node, Violations& out) {
  if (value.IsNull()) {
    return;
  }
  if (!value.IsMap()) {
    out.Add(path, "must be a mapping of label key to value");
    return;
  }
  for (const auto& entry : value) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string field = fmt::format("{}.{}", path, key);
    if (!IsLabelKey(key)) {
      out.Add(field,
              "is not a label key: a name of at most 63 letters, digits, '-', '_' or '.' that "
              "starts and ends with a letter or digit, after an optional DNS subdomain and '/' "
              "(example.com/rack)");
      continue;
    }
    if (node.labels.contains(key)) {
      out.Add(field, "is repeated");
      continue;
    }
    const YAML::Node& label = entry.second;
    if (!label.IsScalar() || !IsLabelValue(label.Scalar())) {
      out.Add(field, fmt::format("must be a label value: empty, or at most 63 letters, digits, "
                                 "'-', '_' or '.' that start and end with a letter or digit; "
                                 "got {}",
                                 label.IsScalar() ? label.Scalar() : "no string"));
      continue;
    }
    node.labels.emplace(key, label.Scalar());
  }
}

// The node at `path`, as far as it is valid; each problem goes to `out`.
Node ParseNode(const YAML::Node& value, const std::string& path, const catalog::Catalog& catalog,
               Violations& out) {
  if (!value.IsMap()) {
    out.Add(path, fmt::format("must be a mapping with keys {}", kNodeKeys));
    return Node{};
  }
  std::map<std::string, YAML::Node> entries = model::YamlMappingEntries(
      value, path, {"name", "cpus", "memory", "accelerators", "emulated", "labels"}, kNodeKeys,
      out.list);
  Node node;
  if (!entries.contains("name")) {
    out.Add(path + ".name", "is required");
  } else if (!entries["name"].IsScalar() || entries["name"].Scalar().empty()) {
    out.Add(path + ".name", "must be a non-empty string");
  } else {
    node.name = entries["name"].Scalar();
  }
  if (!entries.contains("cpus")) {
    out.Add(path + ".cpus", "is required");
  } else if (auto cpus = PositiveCount(entries["cpus"], path + ".cpus", out)) {
    node.cpus = static_cast<int>(*cpus);
  }
  if (!entries.contains("memory")) {
    out.Add(path + ".memory", "is required");
  } else {
    const YAML::Node& memory = entries["memory"];
    const auto mib = memory.IsScalar() ? ParseMemoryMib(memory.Scalar()) : std::nullopt;
    if (!mib || *mib <= 0) {
      out.Add(path + ".memory",
              fmt::format("must be a positive whole number of MiB or with a Mi/Gi/Ti suffix "
                          "(128Gi); got {}",
                          memory.IsScalar() ? memory.Scalar() : "no number"));
    } else {
      node.memory_mib = *mib;
    }
  }
  bool emulated = false;
  if (entries.contains("emulated")) {
    const YAML::Node& flag = entries["emulated"];
    const std::optional<bool> parsed =
        flag.IsScalar() ? model::ParseYamlBool(flag.Scalar()) : std::nullopt;
    if (!parsed) {
      out.Add(path + ".emulated", "must be true or false");
    }
    emulated = parsed.value_or(false);
  }
  if (entries.contains("accelerators")) {
    ParseAccelerators(entries["accelerators"], path + ".accelerators", emulated, catalog, node,
                      out);
  }
  if (entries.contains("labels")) {
    ParseLabels(entries["labels"], path + ".labels", node, out);
  }
  return WithWellKnownLabels(std::move(node), catalog, kBuildArch);
}

Result<Inventory> ParseRoot(const YAML::Node& root, const catalog::Catalog& catalog) {
  Violations out;
  if (!root.IsMap()) {
    out.Add("nodes", "is required: the file must be a mapping with a `nodes` list");
    return Status::InvalidArgument(std::move(out.list));
  }
  std::map<std::string, YAML::Node> entries =
      model::YamlMappingEntries(root, "", {"nodes"}, "nodes", out.list);
  if (!entries.contains("nodes")) {
    out.Add("nodes", "is required");
  } else if (!entries["nodes"].IsSequence() || entries["nodes"].size() == 0) {
    out.Add("nodes", "must be a non-empty list of nodes");
  } else {
    Inventory inventory;
    std::map<std::string, std::size_t> names;
    const YAML::Node& nodes = entries["nodes"];
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string path = fmt::format("nodes[{}]", i);
      Node node = ParseNode(nodes[i], path, catalog, out);
      if (node.name.empty()) {
        continue;  // reported
      }
      if (const auto [first, added] = names.emplace(node.name, i); !added) {
        out.Add(path + ".name",
                fmt::format("{} is already the name of nodes[{}]", node.name, first->second));
      }
      inventory.nodes.push_back(std::move(node));
    }
    if (out.list.empty()) {
      return inventory;
    }
  }
  return Status::InvalidArgument(std::move(out.list));
}

}  // namespace

Result<Inventory> ParseClusterFile(std::string_view yaml_text, const catalog::Catalog& catalog) {
  try {
    return ParseRoot(YAML::Load(std::string(yaml_text)), catalog);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("the cluster file is not valid YAML: line {}, "
                    "column {}: {}",
                    e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

}  // namespace trainyard::sched
