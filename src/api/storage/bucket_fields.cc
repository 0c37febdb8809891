// `ApplyBucketResource` (rules.h): what this server does with each member of GCS's
// bucket resource, as a table (docs/reference/ai-platform-training.md §11.2), read with the one
// strict JSON reader in the storage API's words; and the bucket rules built on it: a new bucket's
// body (`ParseBucketInsert`), a change's preconditions (`PlanBucketChange`).
#include <algorithm>
#include <array>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

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
  kKept,        // kept as given and served back; nothing here acts on it (`shape`: its JSON type)
  kOffOnly,     // would need behaviour this server lacks: only the values in `values` (a JSON
                // array of what means "off") are taken
};

struct BucketFieldRule {
  std::string_view name;
  FieldUse use;
  std::string_view values = "";
  std::string_view why = "";  // kOffOnly: what this server lacks; kKept: the shape expected
  JsonExpected shape = JsonExpected::kObject;  // kKept
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
    {"cors", FieldUse::kKept, "", "an array of CORS rules (JSON objects)", JsonExpected::kArray},
    {"website", FieldUse::kKept, "", "an object of mainPageSuffix and notFoundPage"},
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

const BucketFieldRule& RuleFor(std::string_view name) {
  return *std::ranges::find(kBucketFields, name, &BucketFieldRule::name);
}

// The member's change (into `change`), or its problem reported when this server cannot take it.
void CheckMember(JsonReader& reader, const BucketFieldRule& rule, const nlohmann::json& value,
                 nlohmann::json& change) {
  const std::string name(rule.name);
  switch (rule.use) {
    case FieldUse::kOutputOnly:
      return;
    case FieldUse::kFixed:
      if (value != nlohmann::json::parse(rule.values)) {
        const std::string why = fmt::format(
            "The bucket's {} is {} on this server; it cannot be changed.", name, rule.values);
        reader.Report({.fault = JsonFault::kInvalid, .at = name, .member = name, .detail = why});
      }
      return;
    case FieldUse::kOffOnly: {
      const nlohmann::json off = nlohmann::json::parse(rule.values);
      if (std::ranges::find(off, value) == off.end()) {
        reader.Unsupported("", name, fmt::format("{}. Accepted: {}", rule.why, rule.values));
      }
      return;
    }
    case FieldUse::kLabels:
    case FieldUse::kKept:
      change[name] = value;
      return;
  }
}

// The merged member `name` as the fields keep it: labels as strings under the label rules, a
// kept member as its JSON text when it has its shape.
void Keep(JsonReader& reader, const std::string& name, const nlohmann::json& value,
          BucketFields& out, std::vector<FieldViolation>& violations) {
  const BucketFieldRule& rule = RuleFor(name);
  if (rule.use == FieldUse::kLabels) {
    reader.StringMap(value, name, out.labels,
                     {.type = "an object or null", .item = "a string or null"});
    std::ranges::move(validate::ValidateLabels(out.labels), std::back_inserter(violations));
  } else if (rule.shape == JsonExpected::kArray ? reader.Array(value, name, {.type = rule.why})
                                                : reader.Object(value, name, {.type = rule.why})) {
    out.settings[name] = value.dump();
  }
}

// `current` with the bucket resource `resource` (an object) applied: ApplyBucketResource's rules.
Result<BucketFields> ApplyBucketJson(const BucketFields& current, const nlohmann::json& resource,
                                     BucketWrite mode) {
  std::vector<FieldViolation> violations;
  JsonReader reader = StorageReader(violations, "bucket");
  JsonObject object(reader, resource, "");
  nlohmann::json change = nlohmann::json::object();
  for (const BucketFieldRule& rule : kBucketFields) {
    if (const nlohmann::json* value = object.Take(rule.name)) {
      CheckMember(reader, rule, *value, change);
    }
  }
  object.Finish();  // a member not in the table
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
    Keep(reader, key, value, out, violations);
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  return out;
}

// The body as a JSON object into `resource`, or INVALID_ARGUMENT on "body".
Status ReadBucketResource(std::string_view body, std::string_view wanted,
                          nlohmann::json& resource) {
  return ReadJsonObject(body, fmt::format("The request body must be a JSON object ({}).", wanted),
                        resource);
}

}  // namespace

Result<BucketFields> ApplyBucketResource(const BucketFields& current, std::string_view body,
                                         BucketWrite mode) {
  nlohmann::json resource;
  TY_RETURN_IF_ERROR(ReadBucketResource(body, "a bucket resource", resource));
  return ApplyBucketJson(current, resource, mode);
}

Result<NewBucket> ParseBucketInsert(std::string_view body) {
  nlohmann::json resource;
  TY_RETURN_IF_ERROR(ReadBucketResource(body, "a bucket resource with a \"name\"", resource));
  NewBucket bucket;
  std::vector<FieldViolation> violations;
  JsonReader reader = StorageReader(violations, "bucket");
  if (const auto name = resource.find("name"); name == resource.end() || name->is_null()) {
    reader.Report({.fault = JsonFault::kMissing, .at = "name", .member = "name"});
  } else {
    reader.String(*name, "name", bucket.name);
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  Result<BucketFields> fields = ApplyBucketJson({}, resource, BucketWrite::kReplace);
  if (!fields.ok()) {
    return fields.status();
  }
  bucket.fields = *std::move(fields);
  return bucket;
}

Result<BucketFields> PlanBucketChange(const store::BucketInfo& bucket,
                                      const Preconditions& conditions, std::string_view body,
                                      BucketWrite mode) {
  TY_RETURN_IF_ERROR(CheckBucketConditions(conditions, bucket.metageneration));
  return ApplyBucketResource({.labels = bucket.labels, .settings = bucket.settings}, body, mode);
}

}  // namespace trainyard::server
