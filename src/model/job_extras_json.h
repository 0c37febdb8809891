// The stored JSON form of `JobExtras` (model/job_extras.h), internal to model/: the value of the
// "trainyardExtras" key that `EncodeStoredJob` adds beside the ml v1 fields, and the whole of
// `EncodeJobExtras` (the job store's `extras` column).
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "model/job_extras.h"

namespace trainyard::model::internal {

nlohmann::ordered_json EncodeExtrasValue(const JobExtras& extras);
// INVALID_ARGUMENT when `value` is not what EncodeExtrasValue writes.
Result<JobExtras> DecodeExtrasValue(const nlohmann::json& value);

}  // namespace trainyard::model::internal
