// A trainyard job that is a Vertex AI resource (`model::JobExtras::vertex`) as Vertex AI's API
// shows it: the CustomJob (and the parts a HyperparameterTuningJob shares), its state and error.
// Pure.
//
// States (docs/reference/ai-platform-training.md §13): QUEUED → JOB_STATE_QUEUED, PREPARING →
// JOB_STATE_PENDING, RUNNING → JOB_STATE_RUNNING, SUCCEEDED, FAILED, CANCELLING, CANCELLED →
// JOB_STATE_<same>. `error` is a google.rpc.Status: a failure is code 3 (INVALID_ARGUMENT, as
// Vertex reports a replica's non-zero exit) with the job's errorMessage, a cancellation code 1
// (CANCELLED) with it. `updateTime` is the latest of the job's times.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/job.h"

namespace trainyard::vertex {

inline constexpr std::string_view kCustomJobKind = "CustomJob";
inline constexpr std::string_view kTuningJobKind = "HyperparameterTuningJob";

// "customJobs" or "hyperparameterTuningJobs", the collection of a kind.
std::string_view CollectionOf(std::string_view kind);

// Whether `job` is a Vertex resource of `kind` in `location`: what a path
// ".../locations/<location>/<collection>/<id>" may name, and a list there shows. An ml v1 job, or
// a Vertex job of the other kind or another location, is not found there.
bool IsResourceIn(const model::Job& job, std::string_view kind, std::string_view location);

// "projects/<project>/locations/<location>/<collection>/<id>" of a Vertex job.
std::string ResourceName(std::string_view project, const model::Job& job);

std::string_view VertexStateName(model::JobState state);
// The engine's state for a Vertex state name (any case); nullopt for an unknown name.
std::optional<model::JobState> EngineStateOf(std::string_view vertex_state);

// The fields every Vertex job resource has: name, displayName, state, the times, error, labels.
// `job` must have `extras->vertex`.
nlohmann::ordered_json EncodeCommonFields(std::string_view project, const model::Job& job);

// The CustomJob resource: the common fields plus `jobSpec` (the spec as accepted) and
// `webAccessUris`.
nlohmann::ordered_json EncodeCustomJob(std::string_view project, const model::Job& job);

}  // namespace trainyard::vertex
