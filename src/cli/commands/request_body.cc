#include "cli/commands/request_body.h"

#include <string>

#include <nlohmann/json.hpp>

#include "model/json_codec.h"

namespace trainyard::cli {

ExplicitFields ExplicitFieldsOf(const TrainingFlags& flags) {
  return {.scale_tier = flags.scale_tier.has_value(),
          .use_chief_in_tf_config = flags.use_chief_in_tf_config.has_value()};
}

std::string CreateJobRequestBody(const model::Job& job, const ExplicitFields& explicit_fields) {
  std::string encoded = model::EncodeJob(job);
  if (!job.training_input || explicit_fields == ExplicitFields{}) {
    return encoded;
  }
  // `EncodeJob` output is always valid JSON, so this parse cannot throw.
  nlohmann::ordered_json body = nlohmann::ordered_json::parse(encoded);
  nlohmann::ordered_json& input = body["trainingInput"];
  if (explicit_fields.scale_tier && !input.contains("scaleTier")) {
    input["scaleTier"] = std::string(model::ScaleTierName(job.training_input->scale_tier));
  }
  if (explicit_fields.use_chief_in_tf_config && !input.contains("useChiefInTfConfig")) {
    input["useChiefInTfConfig"] = job.training_input->use_chief_in_tf_config;
  }
  return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace trainyard::cli
