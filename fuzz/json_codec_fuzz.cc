// libFuzzer target for the API body codec (model/json_codec.h). Every input must give a job or
// an INVALID_ARGUMENT with readable violations, never a crash; a decoded job must survive
// encode → decode unchanged, and its encoding must be stable.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "base/utf8.h"
#include "model/json_codec.h"

namespace trainyard::model {
namespace {

void CheckViolations(const Status& status) {
  TY_CHECK(status.code() == Code::kInvalidArgument) << status.ToString();
  TY_CHECK(!status.violations().empty()) << status.ToString();
  for (const FieldViolation& violation : status.violations()) {
    TY_CHECK(IsValidUtf8(violation.field)) << violation.field;
    TY_CHECK(IsValidUtf8(violation.description)) << violation.description;
  }
}

void CheckRoundTrip(const Job& job) {
  const std::string text = EncodeJob(job);
  const Result<Job> again = DecodeJob(text);
  TY_CHECK(again.ok()) << again.status().ToString() << "\n" << text;
  TY_CHECK(*again == job) << text;
  TY_CHECK(EncodeJob(*again) == text) << text;
  const Result<Job> pretty = DecodeJob(EncodeJobPretty(job));
  TY_CHECK(pretty.ok() && *pretty == job) << text;
}

void FuzzOne(std::string_view text) {
  const Result<Job> job = DecodeJob(text);
  if (job.ok()) {
    CheckRoundTrip(*job);
  } else {
    CheckViolations(job.status());
  }
  // The store's form (ml v1 plus extras): a job or an error, and a stable round trip.
  if (const Result<Job> stored = DecodeStoredJob(text); stored.ok()) {
    const Result<Job> again = DecodeStoredJob(EncodeStoredJob(*stored));
    TY_CHECK(again.ok() && *again == *stored) << EncodeStoredJob(*stored);
    // …and the job store's two columns hold the same job.
    const Result<Job> split = DecodeStoredJob(
        EncodeJob(*stored), stored->extras.has_value() ? EncodeJobExtras(*stored->extras) : "");
    TY_CHECK(split.ok() && *split == *stored) << EncodeStoredJob(*stored);
  }
  const Result<TrainingInput> input = DecodeTrainingInput(text);
  if (input.ok()) {
    const Result<TrainingInput> again = DecodeTrainingInput(EncodeTrainingInput(*input));
    TY_CHECK(again.ok() && *again == *input) << EncodeTrainingInput(*input);
  } else {
    CheckViolations(input.status());
  }
}

}  // namespace
}  // namespace trainyard::model

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::model::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
