// The spec a Vertex AI resource keeps from its create body and echoes on the wire
// (`model::VertexResource::document`). Pure.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace trainyard::vertex {

// The members of the create body `body` that the resource keeps, as JSON object text: with
// `unwrap`, the object of the one member given (a CustomJob's jobSpec), else an object of the
// members given, in that order (a tuning job's studySpec, trialJobSpec and counts). A member's
// own text keeps the request's order. An absent or null member is left out; of a repeated one the
// last counts, as in a parsed document.
//
// Linear in the body: the members not kept (labels, displayName) are parsed but never built into
// the document; `body` must have decoded (DecodeCustomJob, DecodeTuningJob), so that the kept ones
// hold only the API's fields.
std::string SpecDocument(std::string_view body, std::span<const std::string_view> members,
                         bool unwrap);

}  // namespace trainyard::vertex
