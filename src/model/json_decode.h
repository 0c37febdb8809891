// Decoding an already parsed JSON value into the model (internal to model/): the one strict
// decoder behind both the API body codec (json_codec.h) and the config file reader
// (config_file.h). Rules as json_codec.h states them. Pure and thread-safe.
#pragma once

#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "model/job.h"
#include "model/violations.h"

namespace trainyard::model::internal {

// Decodes `root` into `job`. Every problem goes to `out`, with paths relative to `root`; problems
// at the root itself are reported under `root_name` (e.g. "job"). `job` is meaningful only when
// nothing was added to `out`.
void DecodeJobValue(const nlohmann::json& root, std::string_view root_name, Job& job,
                    Violations& out);
void DecodeTrainingInputValue(const nlohmann::json& root, std::string_view root_name,
                              TrainingInput& input, Violations& out);

}  // namespace trainyard::model::internal
