// Encoding the model as proto3 JSON values (internal to model/): camelCase names in schema order
// (fields.h), unset values omitted, int64 as strings. Pure and thread-safe.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "model/job.h"

namespace trainyard::model::internal {

nlohmann::ordered_json EncodeJobValue(const Job& job);
nlohmann::ordered_json EncodeTrainingInputValue(const TrainingInput& input);

}  // namespace trainyard::model::internal
