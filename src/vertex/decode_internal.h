// Internal to vertex/: the readers of messages that more than one resource holds (a CustomJob's
// jobSpec is a HyperparameterTuningJob's trialJobSpec).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "vertex/custom_job.h"
#include "vertex/json_reader.h"

namespace trainyard::vertex::internal {

CustomJobSpec ReadJobSpec(const nlohmann::json& value, const std::string& path, Problems& problems);

}  // namespace trainyard::vertex::internal
