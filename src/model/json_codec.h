// proto3 JSON for the ml v1 resources: camelCase names, int64 as strings (numbers accepted),
// enums by name, Timestamps in RFC 3339, Durations as "Ns", bytes as base64.
//
// Decoding is strict, as Google's APIs are: an unknown field, a wrong type, an unknown enum name,
// an int64 out of range or a malformed timestamp is an INVALID_ARGUMENT whose field violations
// name the offending path ("trainingInput.workerConfig.acceleratorConfig.count"), and every such
// problem in the document is reported, not only the first. Encoding omits unset (zero) values and
// emits keys in a fixed order, so decode(encode(job)) == job and encode is deterministic.
// Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::model {

// `text` is one JSON document holding a Job (or a TrainingInput). Violation paths are relative to
// that document's root: "trainingInput.masterType", "jobId".
Result<Job> DecodeJob(std::string_view text);
Result<TrainingInput> DecodeTrainingInput(std::string_view text);

// Compact JSON (no spaces). `EncodeJobPretty` indents by two spaces, for humans.
std::string EncodeJob(const Job& job);
std::string EncodeJobPretty(const Job& job);
std::string EncodeTrainingInput(const TrainingInput& input);

// The form the job store keeps: the ml v1 JSON plus, when the job has extras, a
// "trainyardExtras" member (job_extras.h). `DecodeStoredJob` reads both back; the ml v1 codec
// above never reads or writes extras.
std::string EncodeStoredJob(const Job& job);
Result<Job> DecodeStoredJob(std::string_view text);

// The same job kept as two texts, as the job store does so that it can serve the ml v1 JSON as
// stored: `ml_v1` is `EncodeJob(job)` and `extras` is `EncodeJobExtras(*job.extras)`, or empty when
// the job has no extras.
std::string EncodeJobExtras(const JobExtras& extras);
Result<Job> DecodeStoredJob(std::string_view ml_v1, std::string_view extras);

}  // namespace trainyard::model
