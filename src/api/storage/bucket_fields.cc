// `ApplyBucketResource` (rules.h): what this server does with each member of GCS's
// bucket resource, as a table (docs/reference/ai-platform-training.md §11.2).
#include <algorithm>
#include <array>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/storage/rules.h"
#include "validate/validate.h"

namespace trainyard::server {
namespace {

enum class FieldUse {
  kOutputOnly,  // set by the server; ignored when a client sends it back
  kFixed,       // one value on this server (`values`); another is refused
  kLabels,      // kept, under the label rules
  kKept,        // kept as given and served back; nothing here acts on it (`values`: its shape)
  kOffOnly,     // would need behaviour this server lacks: only the values in `values` (a JSON
                // array of what means "off") are taken
};

struct BucketFieldRule {
  std::string_view name;
  FieldUse use;
  std::string_view values = "";
  std::string_view why = "";  // kOffOnly: what this server lacks; kKept: the shape expected
};

// GCS's bucket resource (JSON API reference, "Buckets"), member by member. A member not listed
// is refused as unknown.
constexpr auto kBucketFields = std::to_array<BucketFieldRule>({
    {"kind", FieldUse::kOutputOnly},
    {"id", FieldUse::kOutputOnly},
    {"selfLink", FieldUse::kOutputOnly},
    {"projectNumber", FieldUse::kOutputOnly},
    {"name", FieldUse::kOutputOnly},  // set by buckets.insert, never changed
    {"timeCreated", FieldUse::kOutputOnly},
    {"updated", FieldUse::kOutputOnly},
    {"etag", FieldUse::kOutputOnly},
    {"metageneration", FieldUse::kOutputOnly},
    {"owner", FieldUse::kOutputOnly},
    {"generation", FieldUse::kOutputOnly},
    {"satisfiesPZS", FieldUse::kOutputOnly},
    {"satisfiesPZI", FieldUse::kOutputOnly},
    {"softDeleteTime", FieldUse::kOutputOnly},
    {"hardDeleteTime", FieldUse::kOutputOnly},
    {"location", FieldUse::kFixed, R"("US")"},
    {"locationType", FieldUse::kFixed, R"("multi-region")"},
    {"storageClass", FieldUse::kFixed, R"("STANDARD")"},
    {"labels", FieldUse::kLabels},
    // Both govern requests this server does not serve (browsers' cross-origin requests to the
    // XML API, static websites on a custom domain), so keeping them is all there is to do.
    {"cors", FieldUse::kKept, "array", "an array of CORS rules (JSON objects)"},
    {"website", FieldUse::kKept, "object", "an object of mainPageSuffix and notFoundPage"},
    {"versioning", FieldUse::kOffOnly, R"([null, {}, {"enabled": false}])",
     "this server keeps one generation of each object"},
    {"lifecycle", FieldUse::kOffOnly, R"([null, {}, {"rule": []}])",
     "this server runs no lifecycle rules"},
    {"retentionPolicy", FieldUse::kOffOnly, "[null, {}]", "this server enforces no retention"},
    {"encryption", FieldUse::kOffOnly, "[null, {}]",
     "this server does not encrypt objects with Cloud KMS keys"},
    {"defaultEventBasedHold", FieldUse::kOffOnly, "[null, false]",
     "this server keeps no object holds"},
    {"billing", FieldUse::kOffOnly, R"([null, {}, {"requesterPays": false}])",
     "this server bills no requester"},
    {"logging", FieldUse::kOffOnly, "[null, {}]", "this server writes no usage logs"},
    {"autoclass", FieldUse::kOffOnly, R"([null, {}, {"enabled": false}])",
     "this server has one storage class"},
    {"softDeletePolicy", FieldUse::kOffOnly, "[null, {}]",
     "this server keeps no soft-deleted objects"},
    {"iamConfiguration", FieldUse::kOffOnly, "[null, {}]",
     "this server's access is its own IAM policy, not GCS's settings"},
    {"acl", FieldUse::kOffOnly, "[null, []]", "this server has no ACLs"},
    {"defaultObjectAcl", FieldUse::kOffOnly, "[null, []]", "this server has no ACLs"},
});

// The member's change, or a violation when this server cannot take it.
void CheckMember(const BucketFieldRule& rule, const nlohmann::json& value, nlohmann::json& change,
                 std::vector<FieldViolation>& violations) {
  const std::string name(rule.name);
  switch (rule.use) {
    case FieldUse::kOutputOnly:
      return;
    case FieldUse::kFixed:
      if (value != nlohmann::json::parse(rule.values)) {
        violations.push_back({name, fmt::format("The bucket's {} is {} on this server; it cannot "
                                                "be changed.",
                                                name, rule.values)});
      }
      return;
    case FieldUse::kOffOnly: {
      const nlohmann::json off = nlohmann::json::parse(rule.values);
      if (std::ranges::find(off, value) == off.end()) {
        violations.push_back({name, fmt::format("The bucket field {} cannot be set on this "
                                                "server: {}. Accepted: {}.",
                                                name, rule.why, rule.values)});
      }
      return;
    }
    case FieldUse::kLabels:
    case FieldUse::kKept:
      change[name] = value;
      return;
  }
}

// The labels of the merged fields, as strings under the label rules.
std::map<std::string, std::string> LabelsOf(const nlohmann::json& labels,
                                            std::vector<FieldViolation>& violations) {
  std::map<std::string, std::string> out;
  if (!labels.is_object()) {
    violations.push_back({"labels", "Invalid value for labels: an object or null."});
    return out;
  }
  for (const auto& [key, value] : labels.items()) {
    if (value.is_string()) {
      out[key] = value.get<std::string>();
    } else {
      const std::string where = "labels." + key;
      violations.push_back({where, fmt::format("Invalid value for {}: a string or null.", where)});
    }
  }
  std::ranges::move(validate::ValidateLabels(out), std::back_inserter(violations));
  return out;
}

}  // namespace

Result<BucketFields> ApplyBucketResource(const BucketFields& current, std::string_view body,
                                         BucketWrite mode) {
  const auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return Status::InvalidArgument(
        {{"body", "The request body must be a JSON object (a bucket resource)."}});
  }
  std::vector<FieldViolation> violations;
  nlohmann::json change = nlohmann::json::object();
  for (const auto& [key, value] : json.items()) {
    const auto* rule = std::ranges::find(kBucketFields, key, &BucketFieldRule::name);
    if (rule == kBucketFields.end()) {
      violations.push_back(
          {key, fmt::format("The bucket field {} is not known to this server.", key)});
      continue;
    }
    CheckMember(*rule, value, change, violations);
  }
  nlohmann::json fields = nlohmann::json::object();
  if (mode == BucketWrite::kPatch) {
    if (!current.labels.empty()) {
      fields["labels"] = current.labels;
    }
    for (const auto& [name, text] : current.settings) {
      fields[name] = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    }
  }
  fields.merge_patch(change);  // onto nothing for kReplace: the body's members less their nulls
  BucketFields out;
  for (const auto& [key, value] : fields.items()) {
    const auto* rule = std::ranges::find(kBucketFields, key, &BucketFieldRule::name);
    if (rule->use == FieldUse::kLabels) {
      out.labels = LabelsOf(value, violations);
    } else if ((rule->values == "array" && !value.is_array()) ||
               (rule->values == "object" && !value.is_object())) {
      violations.push_back({key, fmt::format("Invalid value for {}: {}.", key, rule->why)});
    } else {
      out.settings[key] = value.dump();
    }
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return out;
}

}  // namespace trainyard::server
