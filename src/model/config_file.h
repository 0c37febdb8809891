// Reading a gcloud `--config` file: a YAML (or JSON) document holding a whole `Job`
// (top-level `trainingInput`, `jobId`, `labels`, …), decoded with the same strict rules as the
// API body (model/json_codec.h). YAML scalars are mapped by the target field's type, as gcloud
// does: `count: 4` and `count: "4"` are the same int64; `tpuTfVersion: 2.2` is the string "2.2".
// Pure: the CLI reads the file and hands its text here.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::model {

// `source` names the document in messages (usually the file path).
Result<Job> ParseConfigText(std::string_view text, std::string_view source);

}  // namespace trainyard::model
