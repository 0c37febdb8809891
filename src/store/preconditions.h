// GCS's request preconditions on an object's generation and metageneration (JSON API query
// parameters `ifGenerationMatch`, …; docs/reference/ai-platform-training.md §11.2), as data and
// as a pure evaluation. The bucket store evaluates them with a write, under the same lock
// (bucket_store.h), so two writers racing with `ifGenerationMatch=0` end with one write and one
// refusal; the server parses them and answers reads (api/storage/rules.h).
#pragma once

#include <cstdint>
#include <optional>

#include "base/status.h"

namespace trainyard::store {

struct Preconditions {
  std::optional<std::int64_t> if_generation_match;      // 0: only if there is no live object
  std::optional<std::int64_t> if_generation_not_match;  // 0: only if there is one
  std::optional<std::int64_t> if_metageneration_match;
  std::optional<std::int64_t> if_metageneration_not_match;

  bool empty() const {
    return !if_generation_match && !if_generation_not_match && !if_metageneration_match &&
           !if_metageneration_not_match;
  }
};

// What an object's state is to preconditions (nullopt where used: no live object).
struct ObjectVersion {
  std::int64_t generation = 0;
  std::int64_t metageneration = 0;
};

enum class PreconditionOutcome {
  kHolds,
  kFailed,       // 412 conditionNotMet
  kNotModified,  // 304: a read whose *NotMatch condition failed, as GCS answers a GET
};

// Whether `conditions` hold for `current`. A read (`is_read`) whose only failed conditions are
// *NotMatch ones is kNotModified; every other failure is kFailed.
PreconditionOutcome EvaluatePreconditions(const Preconditions& conditions,
                                          const std::optional<ObjectVersion>& current,
                                          bool is_read);

// The status of a write refused because its preconditions did not hold: FAILED_PRECONDITION with
// GCS's words, naming the `If-Match` header as GCS's 412 does (`IsConditionNotMet`).
Status ConditionNotMet();
bool IsConditionNotMet(const Status& status);

// OK when `conditions` hold for a write over `current`, else `ConditionNotMet()`.
Status CheckWriteConditions(const Preconditions& conditions,
                            const std::optional<ObjectVersion>& current);

// The same for a change of a bucket (a delete, a patch, an update) whose metageneration is
// `metageneration`: a bucket has no generation, and its methods take only the metageneration's
// two conditions (api/storage/rules.h's StorageQueryParams).
Status CheckBucketConditions(const Preconditions& conditions, std::int64_t metageneration);

}  // namespace trainyard::store
