#include "store/preconditions.h"

#include <string>

namespace trainyard::store {
namespace {

constexpr std::string_view kConditionNotMet =
    "At least one of the pre-conditions you specified did not hold.";
constexpr std::string_view kConditionField = "If-Match";

}  // namespace

PreconditionOutcome EvaluatePreconditions(const Preconditions& conditions,
                                          const std::optional<ObjectVersion>& current,
                                          bool is_read) {
  // An absent object has generation 0 to GCS ("ifGenerationMatch=0": create only) and no
  // metageneration at all.
  const std::int64_t generation = current.has_value() ? current->generation : 0;
  const bool match_failed =
      (conditions.if_generation_match.has_value() &&
       *conditions.if_generation_match != generation) ||
      (conditions.if_metageneration_match.has_value() &&
       (!current.has_value() || *conditions.if_metageneration_match != current->metageneration));
  const bool not_match_failed =
      (conditions.if_generation_not_match.has_value() &&
       *conditions.if_generation_not_match == generation) ||
      (conditions.if_metageneration_not_match.has_value() && current.has_value() &&
       *conditions.if_metageneration_not_match == current->metageneration);
  if (match_failed || (not_match_failed && !is_read)) {
    return PreconditionOutcome::kFailed;
  }
  return not_match_failed ? PreconditionOutcome::kNotModified : PreconditionOutcome::kHolds;
}

Status ConditionNotMet() {
  return Status::FromCode(Code::kFailedPrecondition, std::string(kConditionNotMet),
                          {{std::string(kConditionField), std::string(kConditionNotMet)}});
}

bool IsConditionNotMet(const Status& status) {
  return status.code() == Code::kFailedPrecondition && status.violations().size() == 1 &&
         status.violations()[0].field == kConditionField;
}

Status CheckWriteConditions(const Preconditions& conditions,
                            const std::optional<ObjectVersion>& current) {
  if (EvaluatePreconditions(conditions, current, /*is_read=*/false) ==
      PreconditionOutcome::kHolds) {
    return {};
  }
  return ConditionNotMet();
}

Status CheckBucketConditions(const Preconditions& conditions, std::int64_t metageneration) {
  return CheckWriteConditions(conditions, ObjectVersion{.metageneration = metageneration});
}

}  // namespace trainyard::store
