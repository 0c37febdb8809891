// The JSON body of `POST /v1/projects/<p>/jobs`, as gcloud 528 sends it.
//
// `model::EncodeJob` leaves out proto3 zero values. gcloud's apitools messages keep a field that
// was set even to its zero value, so a flag that sets one (`--scale-tier basic`,
// `--use-chief-in-tf-config false`) is still on the wire; `ExplicitFields` records those so the
// body matches gcloud's. (Zero values written in a `--config` file are not tracked: the model
// does not keep presence for them, and the decoded job is the same either way.)
// Pure and thread-safe.
#pragma once

#include <string>

#include "cli/commands/submit_flags.h"
#include "model/job.h"

namespace trainyard::cli {

struct ExplicitFields {
  bool scale_tier = false;              // trainingInput.scaleTier
  bool use_chief_in_tf_config = false;  // trainingInput.useChiefInTfConfig

  friend bool operator==(const ExplicitFields&, const ExplicitFields&) = default;
};

// The fields `flags` set that gcloud would send even at their zero value.
ExplicitFields ExplicitFieldsOf(const TrainingFlags& flags);

// Compact JSON (one line) of `job`, plus `explicit_fields` at their current values.
std::string CreateJobRequestBody(const model::Job& job, const ExplicitFields& explicit_fields);

}  // namespace trainyard::cli
