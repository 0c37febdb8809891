#include "control/list_filter.h"

#include <array>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/filter_syntax.h"
#include "control/list_filter_ast.h"
#include "vertex/vertex_json.h"

namespace trainyard::control {
namespace internal {
namespace {

const model::TrainingInput& Input(const model::Job& job) {
  static const model::TrainingInput kUnset;
  return job.training_input.has_value() ? *job.training_input : kUnset;
}

// The filterable fields, by their JSON names (docs/reference/ai-platform-training.md §2.1, §2.2).
const std::array kFields = {
    FilterField{"jobId", FieldKind::kText,
                [](const model::Job& j) -> std::string_view { return j.job_id; }},
    FilterField{"state", FieldKind::kState,
                [](const model::Job& j) { return model::JobStateName(j.state); }},
    FilterField{"errorMessage", FieldKind::kText,
                [](const model::Job& j) -> std::string_view { return j.error_message; }},
    FilterField{"createTime", FieldKind::kTime, nullptr,
                [](const model::Job& j) { return j.create_time; }},
    FilterField{"startTime", FieldKind::kTime, nullptr,
                [](const model::Job& j) { return j.start_time; }},
    FilterField{"endTime", FieldKind::kTime, nullptr,
                [](const model::Job& j) { return j.end_time; }},
    FilterField{"labels", FieldKind::kLabels},
    FilterField{"trainingInput.region", FieldKind::kText,
                [](const model::Job& j) -> std::string_view { return Input(j).region; }},
    FilterField{"trainingInput.scaleTier", FieldKind::kText,
                [](const model::Job& j) { return model::ScaleTierName(Input(j).scale_tier); }},
    FilterField{"trainingInput.masterType", FieldKind::kText,
                [](const model::Job& j) -> std::string_view { return Input(j).master_type; }},
    FilterField{"trainingInput.workerType", FieldKind::kText,
                [](const model::Job& j) -> std::string_view { return Input(j).worker_type; }},
    FilterField{
        "trainingInput.parameterServerType", FieldKind::kText,
        [](const model::Job& j) -> std::string_view { return Input(j).parameter_server_type; }},
    FilterField{"trainingInput.runtimeVersion", FieldKind::kText,
                [](const model::Job& j) -> std::string_view { return Input(j).runtime_version; }},
    FilterField{"trainingInput.pythonVersion", FieldKind::kText,
                [](const model::Job& j) -> std::string_view { return Input(j).python_version; }},
    FilterField{"trainingInput.pythonModule", FieldKind::kText,
                [](const model::Job& j) -> std::string_view { return Input(j).python_module; }},
    FilterField{"trainingInput.jobDir", FieldKind::kText,
                [](const model::Job& j) -> std::string_view { return Input(j).job_dir; }},
};
// Vertex AI's names for the fields it filters on (AIP-160, snake_case).
std::string_view DisplayName(const model::Job& j) {
  return j.extras.has_value() && j.extras->vertex.has_value()
             ? std::string_view(j.extras->vertex->display_name)
             : std::string_view();
}
const std::array kVertexFields = {
    FilterField{"display_name", FieldKind::kText, DisplayName},
    FilterField{"state", FieldKind::kState,
                [](const model::Job& j) { return vertex::VertexStateName(j.state); }},
    FilterField{"create_time", FieldKind::kTime, nullptr,
                [](const model::Job& j) { return j.create_time; }},
    FilterField{"start_time", FieldKind::kTime, nullptr,
                [](const model::Job& j) { return j.start_time; }},
    FilterField{"end_time", FieldKind::kTime, nullptr,
                [](const model::Job& j) { return j.end_time; }},
    FilterField{"labels", FieldKind::kLabels},
};
constexpr FilterField kLabelField{"labels.<key>", FieldKind::kLabel};

std::span<const FilterField> FieldsOf(FilterDialect dialect) {
  if (dialect == FilterDialect::kVertex) {
    return kVertexFields;
  }
  return kFields;
}
constexpr std::string_view kLabelsField = "labels";

// The segments of `path` from `first` on, joined with '.'.
std::string Join(const std::vector<std::string>& path, std::size_t first) {
  std::string out;
  for (std::size_t i = first; i < path.size(); ++i) {
    out += i == first ? "" : ".";
    out += path[i];
  }
  return out;
}

template <typename T>
bool Compare(const T& actual, FilterOp op, const T& value) {
  switch (op) {
    case FilterOp::kEq:
    case FilterOp::kHas:
      return actual == value;
    case FilterOp::kNe:
      return actual != value;
    case FilterOp::kLt:
      return actual < value;
    case FilterOp::kLe:
      return actual <= value;
    case FilterOp::kGt:
      return actual > value;
    case FilterOp::kGe:
      return actual >= value;
    case FilterOp::kRegex:  // refused by the builder
    case FilterOp::kNotRegex:
      return false;
  }
  return false;
}

bool MatchText(std::string_view actual, const FilterTerm& term) {
  if (term.prefix) {
    return actual.starts_with(term.text);
  }
  return Compare(actual, term.op, std::string_view(term.text));
}

bool MatchTerm(const FilterTerm& term, const model::Job& job) {
  switch (term.field->kind) {
    case FieldKind::kLabels:
      return term.presence ? !job.labels.empty() : job.labels.contains(term.text);
    case FieldKind::kLabel: {
      const auto it = job.labels.find(term.label_key);
      if (term.presence) {
        return it != job.labels.end();
      }
      return it == job.labels.end() ? term.op == FilterOp::kNe : MatchText(it->second, term);
    }
    case FieldKind::kTime: {
      const std::optional<WallTime> actual = term.field->time(job);
      if (term.presence) {
        return actual.has_value();
      }
      return actual.has_value() ? Compare(*actual, term.op, term.time) : term.op == FilterOp::kNe;
    }
    case FieldKind::kState:
      return term.presence ? job.state != model::JobState::kUnspecified
                           : MatchText(term.field->text(job), term);
    case FieldKind::kText:
      return term.presence ? !term.field->text(job).empty()
                           : MatchText(term.field->text(job), term);
  }
  return false;
}

bool Evaluate(const ListFilter::Node& node, const model::Job& job) {
  switch (node.type) {
    case ListFilter::Node::Type::kAnd:
      return Evaluate(*node.left, job) && Evaluate(*node.right, job);
    case ListFilter::Node::Type::kOr:
      return Evaluate(*node.left, job) || Evaluate(*node.right, job);
    case ListFilter::Node::Type::kNot:
      return !Evaluate(*node.left, job);
    case ListFilter::Node::Type::kTerm:
      return MatchTerm(node.term, job);
  }
  return false;
}

}  // namespace

std::string_view StateNameIn(FilterDialect dialect, model::JobState state) {
  return dialect == FilterDialect::kVertex ? vertex::VertexStateName(state)
                                           : model::JobStateName(state);
}

const FilterField* FindFilterField(const std::vector<std::string>& path, std::string& label_key,
                                   FilterDialect dialect) {
  const std::string name = filter_syntax::CanonicalField(path);
  for (const FilterField& field : FieldsOf(dialect)) {
    if (field.name == name) {
      return &field;
    }
  }
  if (path.size() >= 2 && path[0] == kLabelsField) {
    label_key = Join(path, 1);  // labels.a.b is label "a.b", as is labels."a.b"
    if (!label_key.empty()) {
      return &kLabelField;
    }
  }
  return nullptr;
}

std::string FilterFieldNames(FilterDialect dialect) {
  std::string names;
  for (const FilterField& field : FieldsOf(dialect)) {
    names += field.name;
    names += ", ";
  }
  names += kLabelField.name;
  return names;
}

}  // namespace internal

ListFilter::ListFilter(std::unique_ptr<const Node> root) : root_(std::move(root)) {}
ListFilter::ListFilter(ListFilter&&) noexcept = default;
ListFilter& ListFilter::operator=(ListFilter&&) noexcept = default;
ListFilter::~ListFilter() = default;

Result<ListFilter> ListFilter::Parse(std::string_view text, FilterDialect dialect) {
  Result<std::unique_ptr<const Node>> root = internal::ParseFilterExpression(text, dialect);
  if (!root.ok()) {
    return root.status();
  }
  return ListFilter(std::move(*root));
}

bool ListFilter::Matches(const model::Job& job) const {
  return root_ == nullptr || internal::Evaluate(*root_, job);
}

}  // namespace trainyard::control
