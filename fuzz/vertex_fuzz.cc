// libFuzzer target for the Vertex AI decoders (vertex/custom_job.h, vertex/tuning_job.h), the
// parsers behind every `gcloud ai custom-jobs create` and `hp-tuning-jobs create`. Every input
// must give a value or INVALID_ARGUMENT with readable violations, never a crash; a decoded job
// must go through Vertex's rules and the mapping to an engine job without crashing, and every
// ml v1 path of the mapped job must translate.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "base/utf8.h"
#include "vertex/custom_job.h"
#include "vertex/custom_job_mapping.h"
#include "vertex/tuning_job.h"

namespace trainyard::vertex {
namespace {

MappingContext Context(std::string kind) {
  return MappingContext{.job_id = "1",
                        .kind = std::move(kind),
                        .location = "us-central1",
                        .document = "{}",
                        .host_python_prefixes = DefaultHostPythonPrefixes(),
                        .catalog = nullptr};
}

void CheckRefusal(const Status& status) {
  TY_CHECK(status.code() == Code::kInvalidArgument) << status.ToString();
  for (const FieldViolation& violation : status.violations()) {
    TY_CHECK(!violation.description.empty());
    TY_CHECK(!MlFieldToVertex(violation.field, "jobSpec").empty());
  }
}

void FuzzOne(std::string_view text) {
  const Result<CustomJob> custom = DecodeCustomJob(text);
  if (custom.ok()) {
    const MappingContext context = Context("CustomJob");
    ValidateJobSpec(custom->job_spec, "jobSpec", context);
    ValidateDisplayName(custom->display_name);
    const model::Job job = ToJob(*custom, context);
    TY_CHECK(job.extras.has_value() && job.extras->vertex.has_value());
  } else {
    CheckRefusal(custom.status());
  }
  const Result<TuningJob> tuning = DecodeTuningJob(text);
  if (tuning.ok()) {
    const MappingContext context = Context("HyperparameterTuningJob");
    ValidateTuningJob(*tuning, context);
    const model::Job job = ToJob(*tuning, context);
    TY_CHECK(job.training_input->hyperparameters.has_value());
    TY_CHECK(IsValidUtf8(EncodeTuningJob("p", job).dump(
        -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)));
  } else {
    CheckRefusal(tuning.status());
  }
}

}  // namespace
}  // namespace trainyard::vertex

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::vertex::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
