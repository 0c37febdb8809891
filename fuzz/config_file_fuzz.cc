// libFuzzer target for the config file reader (model/config_file.h). Every input must give a job
// or an INVALID_ARGUMENT with readable violations, never a crash or an escaped exception; a job
// read from YAML must survive the API's JSON form unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "base/utf8.h"
#include "model/config_file.h"
#include "model/json_codec.h"

namespace trainyard::model {
namespace {

void FuzzOne(std::string_view text) {
  const Result<Job> job = ParseConfigText(text, "fuzz.yaml");
  if (job.ok()) {
    const std::string json = EncodeJob(*job);
    const Result<Job> again = DecodeJob(json);
    TY_CHECK(again.ok()) << again.status().ToString() << "\n" << json;
    TY_CHECK(*again == *job) << json;
    return;
  }
  TY_CHECK(job.status().code() == Code::kInvalidArgument) << job.status().ToString();
  TY_CHECK(!job.status().violations().empty()) << job.status().ToString();
  for (const FieldViolation& violation : job.status().violations()) {
    TY_CHECK(IsValidUtf8(violation.field)) << violation.field;
    TY_CHECK(IsValidUtf8(violation.description)) << violation.description;
  }
}

}  // namespace
}  // namespace trainyard::model

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::model::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
