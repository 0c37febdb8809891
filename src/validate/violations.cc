#include "validate/violations.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <utility>

namespace trainyard::validate {
namespace {

// One field of a message: its JSON name and, for sub-messages, the message it holds.
struct Field {
  std::string_view name;
  std::string_view message;
};

struct Message {
  std::string_view name;
  std::vector<Field> fields;  // in declaration order (model/job.h)
};

const std::vector<Message>& Messages() {
  static const std::vector<Message> kMessages = {
      {"Job", {{"jobId", ""}, {"labels", ""}, {"trainingInput", "TrainingInput"}}},
      {"TrainingInput",
       {{"scaleTier", ""},
        {"masterType", ""},
        {"masterConfig", "ReplicaConfig"},
        {"workerType", ""},
        {"workerConfig", "ReplicaConfig"},
        {"workerCount", ""},
        {"parameterServerType", ""},
        {"parameterServerConfig", "ReplicaConfig"},
        {"parameterServerCount", ""},
        {"evaluatorType", ""},
        {"evaluatorConfig", "ReplicaConfig"},
        {"evaluatorCount", ""},
        {"useChiefInTfConfig", ""},
        {"packageUris", ""},
        {"pythonModule", ""},
        {"args", ""},
        {"hyperparameters", "HyperparameterSpec"},
        {"region", ""},
        {"jobDir", ""},
        {"runtimeVersion", ""},
        {"pythonVersion", ""},
        {"scheduling", "Scheduling"},
        {"network", ""},
        {"serviceAccount", ""},
        {"encryptionConfig", ""},
        {"enableWebAccess", ""}}},
      {"ReplicaConfig",
       {{"acceleratorConfig", "AcceleratorConfig"},
        {"imageUri", ""},
        {"tpuTfVersion", ""},
        {"containerCommand", ""},
        {"containerArgs", ""},
        {"diskConfig", "DiskConfig"},
        // A role's extras as validate.h names them: not on the ml v1 wire.
        {"containerEnv", ""},
        {"args", ""},
        {"env", ""}}},
      {"AcceleratorConfig", {{"count", ""}, {"type", ""}}},
      {"DiskConfig", {{"bootDiskType", ""}, {"bootDiskSizeGb", ""}}},
      {"Scheduling",
       {{"maxRunningTime", ""},
        {"maxWaitTime", ""},
        {"priority", ""},
        {"resilientToWorkerRestart", ""},
        {"strategy", ""}}},
      {"HyperparameterSpec",
       {{"goal", ""},
        {"params", "ParameterSpec"},
        {"maxTrials", ""},
        {"maxParallelTrials", ""},
        {"maxFailedTrials", ""},
        {"hyperparameterMetricTag", ""},
        {"enableTrialEarlyStopping", ""},
        {"algorithm", ""},
        {"resumePreviousJobId", ""}}},
      {"ParameterSpec",
       {{"parameterName", ""},
        {"type", ""},
        {"minValue", ""},
        {"maxValue", ""},
        {"categoricalValues", ""},
        {"discreteValues", ""},
        {"scaleType", ""}}},
  };
  return kMessages;
}

constexpr int kUnknownRank = 1000;

// Sort key of a path: per segment, the field's position in its message and then its array
// index plus one (zero when the segment has no index).
std::vector<int> SortKey(std::string_view path) {
  std::vector<int> key;
  std::string_view message = "Job";
  while (!path.empty()) {
    const std::size_t dot = path.find('.');
    std::string_view segment = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);

    int index = 0;
    if (const std::size_t bracket = segment.find('['); bracket != std::string_view::npos) {
      const std::string_view digits = segment.substr(bracket + 1);
      int parsed = 0;
      std::from_chars(digits.data(), digits.data() + digits.size(), parsed);
      index = parsed + 1;
      segment = segment.substr(0, bracket);
    }

    int rank = kUnknownRank;
    std::string_view child;
    for (const Message& m : Messages()) {
      if (m.name != message) {
        continue;
      }
      for (std::size_t i = 0; i < m.fields.size(); ++i) {
        if (m.fields[i].name == segment) {
          rank = static_cast<int>(i);
          child = m.fields[i].message;
        }
      }
    }
    key.push_back(rank);
    key.push_back(index);
    message = child;
  }
  return key;
}

}  // namespace

FieldPath FieldPath::Child(std::string_view name) const {
  if (text_.empty()) {
    return FieldPath(std::string(name));
  }
  std::string text = text_;
  text += '.';
  text += name;
  return FieldPath(std::move(text));
}

FieldPath FieldPath::Index(std::size_t index) const {
  return FieldPath(text_ + "[" + std::to_string(index) + "]");
}

std::string_view FieldPath::leaf() const {
  const std::string_view text = text_;
  const std::size_t dot = text.rfind('.');
  return dot == std::string_view::npos ? text : text.substr(dot + 1);
}

void Violations::Add(const FieldPath& field, std::string description) {
  list_.push_back({field.str(), std::move(description)});
}

std::vector<FieldViolation> Violations::TakeSorted() && {
  std::vector<std::pair<std::vector<int>, FieldViolation>> keyed;
  keyed.reserve(list_.size());
  for (FieldViolation& v : list_) {
    keyed.emplace_back(SortKey(v.field), std::move(v));
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<FieldViolation> sorted;
  sorted.reserve(keyed.size());
  for (auto& [key, v] : keyed) {
    sorted.push_back(std::move(v));
  }
  list_.clear();
  return sorted;
}

}  // namespace trainyard::validate
