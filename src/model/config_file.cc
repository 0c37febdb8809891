#include "model/config_file.h"

#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "base/utf8.h"
#include "model/json_decode.h"
#include "model/violations.h"
#include "model/yaml_to_json.h"

namespace trainyard::model {
namespace {

constexpr std::string_view kRoot = "job";
// The decoder words problems for API bodies; a config file is not a JSON payload.
constexpr std::string_view kJsonPrefix = "Invalid JSON payload received. ";

Status DocumentError(std::string description) {
  return Status::InvalidArgument(
      std::vector<FieldViolation>{{std::string(kRoot), std::move(description)}});
}

std::string_view KindOf(const YAML::Node& node) {
  if (node.IsScalar()) {
    return "a scalar";
  }
  if (node.IsSequence()) {
    return "a list";
  }
  return "nothing";
}

// Records where each document starts; ignores the rest.
class DocumentStarts final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnAlias(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnScalar(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& /*value*/) override {}
  void OnSequenceStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/,
                       YAML::anchor_t /*anchor*/, YAML::EmitterStyle::value /*style*/) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {}
  void OnMapEnd() override {}

  std::vector<YAML::Mark> starts;
};

std::string InvalidYaml(std::string_view source, const YAML::Mark& mark, std::string_view why) {
  if (mark.is_null()) {
    return fmt::format("{}: invalid YAML: {}", source, why);
  }
  return fmt::format("{}:{}:{}: invalid YAML: {}", source, mark.line + 1, mark.column + 1, why);
}

// The number of YAML documents in `text`, or why it is not YAML. yaml-cpp 0.7's `LoadAll` loops
// forever, allocating, on a ',' that starts a document (jbeder/yaml-cpp#1040): its parser reports a
// null document without consuming the token. So count with the bare parser, and take a document
// that starts where the previous one did for that syntax error.
Result<std::size_t> CountDocuments(const std::string& text, std::string_view source) {
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  DocumentStarts handler;
  while (parser.HandleNextDocument(handler)) {
    const std::vector<YAML::Mark>& starts = handler.starts;
    if (starts.size() >= 2 && starts[starts.size() - 1].pos == starts[starts.size() - 2].pos) {
      return DocumentError(InvalidYaml(source, starts.back(), "unexpected character"));
    }
  }
  return handler.starts.size();
}

// The one YAML document in `text`, or why there is not exactly one mapping there.
Result<YAML::Node> LoadMapping(const std::string& text, std::string_view source) {
  YAML::Node document;
  try {
    const Result<std::size_t> count = CountDocuments(text, source);
    if (!count.ok()) {
      return count.status();
    }
    if (*count > 1) {
      return DocumentError(
          fmt::format("{}: the file holds {} YAML documents; expected one", source, *count));
    }
    document = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp quotes the offending byte raw.
    return DocumentError(InvalidYaml(source, e.mark, ToValidUtf8(e.msg)));
  }
  if (document.IsNull()) {
    return DocumentError(fmt::format(
        "{}: the file is empty; expected a Job as a YAML mapping, e.g. \"trainingInput:\"",
        source));
  }
  if (!document.IsMap()) {
    return DocumentError(fmt::format(
        "{}: expected a Job as a YAML mapping (jobId, labels, trainingInput, ...), got {}", source,
        KindOf(document)));
  }
  return document;
}

// "config.yaml:12:5: " where the field's key is, or "config.yaml: " when it has no position.
std::string Locate(std::string_view source, const internal::SourcePositions& positions,
                   const std::string& field) {
  const auto it = positions.find(field);
  if (it == positions.end()) {
    return fmt::format("{}: ", source);
  }
  return fmt::format("{}:{}:{}: ", source, it->second.line, it->second.column);
}

}  // namespace

Result<Job> ParseConfigText(std::string_view text, std::string_view raw_source) {
  // Messages must be UTF-8 (they end up in JSON); a file name need not be.
  const std::string source = ToValidUtf8(raw_source);
  try {
    Result<YAML::Node> root = LoadMapping(std::string(text), source);
    if (!root.ok()) {
      return root.status();
    }
    internal::Violations violations;
    internal::SourcePositions positions;
    const std::optional<nlohmann::json> document =
        internal::JobYamlToJson(*root, violations, positions);
    Job job;
    if (document) {
      internal::DecodeJobValue(*document, kRoot, job, violations);
    }
    if (violations.empty()) {
      return job;
    }
    for (auto& [violation, locus] : violations.entries()) {
      std::string& description = violation.description;
      if (description.starts_with(kJsonPrefix)) {
        description.erase(0, kJsonPrefix.size());
      }
      description.insert(0, Locate(source, positions, locus));
    }
    return Status::InvalidArgument(std::move(violations).Take(kRoot));
  } catch (const std::exception& e) {
    // yaml-cpp throws on malformed node access; no input may escape as an exception.
    return DocumentError(
        fmt::format("{}: could not read the file: {}", source, ToValidUtf8(e.what())));
  }
}

}  // namespace trainyard::model
