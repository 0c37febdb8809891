// Vertex AI `--config` files as gcloud 528 reads them (command_lib/export/util.py `Import`,
// api_lib/util/messages.py): a YAML (or JSON) document holding a `CustomJobSpec` (`ai custom-jobs
// create`) or a whole `HyperparameterTuningJob` (`ai hp-tuning-jobs create`), turned into the JSON
// the aiplatform v1 API takes. YAML scalars carry no type, so each is converted by the type of its
// field in data/vertex_fields.json (generated from gcloud's own messages by
// scripts/gen_vertex_fields.py): int64 fields become JSON strings (`replicaCount: 2` is "2"),
// int32 and double fields numbers, bool fields booleans. A single mapping where a list is expected
// becomes a list of one, and fields the schema does not know are passed on as YAML types them, as
// gcloud does; the server judges them. Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/status.h"

namespace trainyard::cli {

// `text` as the message `message` ("CustomJobSpec", "HyperparameterTuningJob"); an empty document
// is an empty object. INVALID_ARGUMENT naming `source` (the file) when the text is not YAML or
// not a mapping.
Result<nlohmann::json> ParseVertexConfig(std::string_view text, std::string_view message,
                                         std::string_view source);

// The accelerator types `--worker-pool-spec` accepts, sorted ("NVIDIA_TESLA_T4", "TPU_V3", …).
const std::vector<std::string>& VertexAcceleratorTypes();

}  // namespace trainyard::cli
