#include "model/json_codec.h"

#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "model/job_extras_json.h"
#include "model/json_decode.h"
#include "model/json_encode.h"
#include "model/violations.h"

namespace trainyard::model {
namespace {

using nlohmann::json;

constexpr std::string_view kJobRoot = "job";
constexpr std::string_view kTrainingInputRoot = "trainingInput";
constexpr std::string_view kExtrasKey = "trainyardExtras";

// Parses `text`, or reports why it is not one JSON document under `root`.
std::optional<json> ParseDocument(std::string_view text, std::string_view root,
                                  internal::Violations& out) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    out.Add(std::string(root),
            "Invalid JSON payload received. The document is empty; expected a JSON object.");
    return std::nullopt;
  }
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 7: …".
    std::string_view message = e.what();
    if (const auto end = message.find("] "); message.starts_with('[') && end != message.npos) {
      message.remove_prefix(end + 2);
    }
    // The parser quotes the offending token raw: it may be long or not UTF-8.
    constexpr std::size_t kMaxMessage = 300;
    out.Add(std::string(root),
            "Invalid JSON payload received. " + ToValidUtf8(message.substr(0, kMaxMessage)));
    return std::nullopt;
  }
}

template <typename T, typename DecodeValue>
Result<T> Decode(std::string_view text, std::string_view root, DecodeValue decode_value) {
  internal::Violations violations;
  T value;
  if (const auto document = ParseDocument(text, root, violations)) {
    decode_value(*document, root, value, violations);
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations).Take(root));
  }
  return value;
}

// Invalid UTF-8 in strings set by code (e.g. a replica's output in `errorMessage`) becomes
// U+FFFD rather than an exception; decoded values are always valid UTF-8.
std::string Dump(const nlohmann::ordered_json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

Result<Job> DecodeJob(std::string_view text) {
  return Decode<Job>(text, kJobRoot, internal::DecodeJobValue);
}

Result<TrainingInput> DecodeTrainingInput(std::string_view text) {
  return Decode<TrainingInput>(text, kTrainingInputRoot, internal::DecodeTrainingInputValue);
}

std::string EncodeJob(const Job& job) {
  return Dump(internal::EncodeJobValue(job), -1);
}

std::string EncodeJobPretty(const Job& job) {
  return Dump(internal::EncodeJobValue(job), 2);
}

std::string EncodeTrainingInput(const TrainingInput& input) {
  return Dump(internal::EncodeTrainingInputValue(input), -1);
}

std::string EncodeStoredJob(const Job& job) {
  nlohmann::ordered_json value = internal::EncodeJobValue(job);
  if (job.extras.has_value()) {
    value[std::string(kExtrasKey)] = internal::EncodeExtrasValue(*job.extras);
  }
  return Dump(value, -1);
}

Result<Job> DecodeStoredJob(std::string_view text) {
  internal::Violations violations;
  std::optional<json> document = ParseDocument(text, kJobRoot, violations);
  if (!document.has_value()) {
    return Status::InvalidArgument(std::move(violations).Take(kJobRoot));
  }
  std::optional<JobExtras> extras;
  if (document->is_object()) {
    if (const auto it = document->find(kExtrasKey); it != document->end()) {
      Result<JobExtras> decoded = internal::DecodeExtrasValue(*it);
      if (!decoded.ok()) {
        return decoded.status();
      }
      extras = std::move(*decoded);
      document->erase(it);
    }
  }
  Job job;
  internal::DecodeJobValue(*document, kJobRoot, job, violations);
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations).Take(kJobRoot));
  }
  job.extras = std::move(extras);
  return job;
}

std::string EncodeJobExtras(const JobExtras& extras) {
  return Dump(internal::EncodeExtrasValue(extras), -1);
}

Result<Job> DecodeStoredJob(std::string_view ml_v1, std::string_view extras) {
  Result<Job> job = DecodeJob(ml_v1);
  if (!job.ok() || extras.empty()) {
    return job;
  }
  internal::Violations violations;
  std::optional<json> document = ParseDocument(extras, kExtrasKey, violations);
  if (!document.has_value()) {
    return Status::InvalidArgument(std::move(violations).Take(kExtrasKey));
  }
  Result<JobExtras> decoded = internal::DecodeExtrasValue(*document);
  if (!decoded.ok()) {
    return decoded.status();
  }
  job->extras = std::move(*decoded);
  return job;
}

}  // namespace trainyard::model
