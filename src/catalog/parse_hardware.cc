// Parsers for machine_types.json, accelerators.json and accelerator_counts.json.
#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog/json_reader.h"
#include "catalog/parse.h"

namespace trainyard::catalog::internal {
namespace {

bool ParseFamily(std::string_view text, MachineFamily& family) {
  if (text == "legacy") {
    family = MachineFamily::kLegacy;
  } else if (text == "compute_engine") {
    family = MachineFamily::kComputeEngine;
  } else if (text == "tpu_host") {
    family = MachineFamily::kTpuHost;
  } else {
    return false;
  }
  return true;
}

bool ParseKind(std::string_view text, AcceleratorKind& kind) {
  if (text == "gpu") {
    kind = AcceleratorKind::kGpu;
  } else if (text == "tpu") {
    kind = AcceleratorKind::kTpu;
  } else {
    return false;
  }
  return true;
}

void ReadMachineType(ObjectReader& in, std::vector<MachineType>& out) {
  MachineType type;
  type.name = in.String("name");
  in.Name(type.name);
  const std::string family = in.String("family");
  if (!family.empty() && !ParseFamily(family, type.family)) {
    in.Fail(fmt::format("family \"{}\" is not legacy, compute_engine or tpu_host", family));
  }
  type.vcpus = in.Int("vcpus", 0);
  type.memory_gb = in.Number("memory_gb");
  type.builtin_accelerator = in.OptionalString("builtin_accelerator");
  type.builtin_accelerator_count = in.OptionalInt("builtin_accelerator_count", 1);
  type.compute_engine_equivalent = in.OptionalString("compute_engine_equivalent");
  type.description = in.String("description");
  type.extension = in.OptionalBool("extension", false);
  if (type.builtin_accelerator.empty() != (type.builtin_accelerator_count == 0)) {
    in.Fail("builtin_accelerator and builtin_accelerator_count go together");
  }
  if (type.family != MachineFamily::kTpuHost && (type.vcpus == 0 || type.memory_gb == 0)) {
    in.Fail("a VM type needs vcpus and memory_gb above 0");
  }
  if (type.family != MachineFamily::kLegacy && !type.compute_engine_equivalent.empty()) {
    in.Fail("only legacy types have a compute_engine_equivalent");
  }
  out.push_back(std::move(type));
}

void ReadAccelerator(ObjectReader& in, std::vector<Accelerator>& out) {
  Accelerator accelerator;
  accelerator.name = in.String("name");
  in.Name(accelerator.name);
  accelerator.flag_name = in.String("flag_name");
  if (!accelerator.name.empty() && !accelerator.flag_name.empty() &&
      accelerator.flag_name != FlagSpelling(accelerator.name)) {
    in.Fail(fmt::format("flag_name \"{}\" should be \"{}\"", accelerator.flag_name,
                        FlagSpelling(accelerator.name)));
  }
  const std::string kind = in.String("kind");
  if (!kind.empty() && !ParseKind(kind, accelerator.kind)) {
    in.Fail(fmt::format("kind \"{}\" is not gpu or tpu", kind));
  }
  accelerator.display_name = in.String("display_name");
  accelerator.device_memory_gb = in.Number("device_memory_gb");
  accelerator.allowed_counts = in.CountList("allowed_counts", /*allow_empty=*/true);
  accelerator.max_vcpus_per_unit = in.Int("max_vcpus_per_unit", 0);
  accelerator.max_memory_gb_per_unit = in.Number("max_memory_gb_per_unit");
  accelerator.builtin_only = in.OptionalBool("builtin_only", false);
  accelerator.in_api_enum = in.OptionalBool("in_api_enum", true);
  accelerator.device_name_patterns = in.StringList("device_name_patterns", /*required=*/false);
  if (const nlohmann::json* caps = in.Array("caps", /*required=*/false); caps != nullptr) {
    for (std::size_t i = 0; i < caps->size(); ++i) {
      ObjectReader cap_in((*caps)[i], fmt::format("caps[{}]", i));
      AcceleratorCap cap;
      cap.count = cap_in.Int("count", 1);
      cap.max_vcpus = cap_in.Int("max_vcpus", 1);
      cap.max_memory_gb = cap_in.Number("max_memory_gb");
      if (Status status = cap_in.Finish(); !status.ok()) {
        in.Fail(status.message());
      } else if (std::ranges::find(accelerator.allowed_counts, cap.count) ==
                 accelerator.allowed_counts.end()) {
        in.Fail(fmt::format("caps[{}]: count {} is not an allowed count", i, cap.count));
      }
      accelerator.caps.push_back(cap);
    }
  }
  if (accelerator.builtin_only && !accelerator.allowed_counts.empty()) {
    in.Fail("a builtin_only accelerator has no allowed_counts of its own");
  }
  if (!accelerator.builtin_only && accelerator.allowed_counts.empty()) {
    in.Fail("allowed_counts is empty; mark the accelerator builtin_only if that is intended");
  }
  out.push_back(std::move(accelerator));
}

// One row: {"machine_type": ..., "counts": {"<accelerator>": [counts], ...}}.
void ReadCountRow(ObjectReader& in, bool additional, const std::vector<std::string>& columns,
                  CountTable& table) {
  const std::string machine_type = in.String("machine_type");
  in.Name(machine_type);
  if (additional) {
    in.String("source");  // additional rows must say where they come from
  }
  const nlohmann::json* counts = in.Object("counts");
  if (in.failed() || counts == nullptr) {
    return;
  }
  auto [row, inserted] = table.try_emplace(machine_type);
  if (!inserted) {
    in.Fail("duplicate row for this machine type");
    return;
  }
  ObjectReader cells(*counts, "counts");
  for (const auto& item : counts->items()) {
    if (!additional && std::ranges::find(columns, item.key()) == columns.end()) {
      in.Fail(fmt::format("\"{}\" is not one of the table's columns", item.key()));
      return;
    }
    row->second[item.key()] = cells.CountList(item.key(), /*allow_empty=*/false);
  }
  if (Status status = cells.Finish(); !status.ok()) {
    in.Fail(status.message());
  }
}

}  // namespace

Status ParseMachineTypes(std::string_view file, const nlohmann::json& doc, Parts& parts) {
  return ForEachEntry(file, doc, "machine_types",
                      [&](ObjectReader& in) { ReadMachineType(in, parts.machine_types); });
}

Status ParseAccelerators(std::string_view file, const nlohmann::json& doc, Parts& parts) {
  return ForEachEntry(file, doc, "accelerators",
                      [&](ObjectReader& in) { ReadAccelerator(in, parts.accelerators); });
}

Status ParseAcceleratorCounts(std::string_view file, const nlohmann::json& doc, Parts& parts) {
  ObjectReader top(doc, std::string(file));
  top.OptionalString("notes");
  parts.count_columns = top.StringList("columns", /*required=*/true);
  const nlohmann::json* rows = top.Array("rows", /*required=*/true);
  const nlohmann::json* additional_rows = top.Array("additional_rows", /*required=*/false);
  TY_RETURN_IF_ERROR(top.Finish());
  for (const auto& [key, array, additional] :
       {std::tuple{"rows", rows, false}, std::tuple{"additional_rows", additional_rows, true}}) {
    if (array == nullptr) {
      continue;
    }
    for (std::size_t i = 0; i < array->size(); ++i) {
      ObjectReader row((*array)[i], fmt::format("{}: {}[{}]", file, key, i));
      ReadCountRow(row, additional, parts.count_columns, parts.allowed_counts);
      TY_RETURN_IF_ERROR(row.Finish());
    }
  }
  return Status();
}

}  // namespace trainyard::catalog::internal
