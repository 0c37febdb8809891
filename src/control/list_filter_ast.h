// The list filter's own tree: base/filter_syntax's parse with each term checked against the job
// fields and its value converted to the field's type. Shared by the builder
// (list_filter_parser.cc) and the evaluator (list_filter.cc); internal to control/.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/filter_syntax.h"
#include "base/status.h"
#include "control/list_filter.h"
#include "model/job.h"

namespace trainyard::control::internal {

using FilterOp = filter_syntax::Op;  // never kRegex or kNotRegex: the builder refuses them

enum class FieldKind {
  kText,    // a string field
  kState,   // the state enum, compared by name
  kTime,    // a timestamp, compared as an instant
  kLabel,   // `labels.<key>`
  kLabels,  // `labels` itself: `labels:KEY`
};

struct FilterField {
  std::string_view name;
  FieldKind kind;
  std::string_view (*text)(const model::Job&) = nullptr;         // kText, kState
  std::optional<WallTime> (*time)(const model::Job&) = nullptr;  // kTime
};

// The field a term's `path` names in `dialect`, or nullptr; for `labels.<key>` the key goes to
// `label_key`.
const FilterField* FindFilterField(const std::vector<std::string>& path, std::string& label_key,
                                   FilterDialect dialect);

// The accepted field names, for error messages.
std::string FilterFieldNames(FilterDialect dialect);

// The names a kState field compares with, in the dialect: "QUEUED" or "JOB_STATE_QUEUED".
std::string_view StateNameIn(FilterDialect dialect, model::JobState state);

// One comparison, its value already converted to the field's type.
struct FilterTerm {
  const FilterField* field = nullptr;
  std::string label_key;  // kLabel
  FilterOp op = FilterOp::kEq;
  std::string text;       // the value; without the trailing `*` of a prefix match
  bool prefix = false;    // `:` with a value ending in `*`
  bool presence = false;  // `:*`
  WallTime time{};        // kTime
};

// Parses `text` and checks it against the job fields; null for a blank filter.
Result<std::unique_ptr<const ListFilter::Node>> ParseFilterExpression(std::string_view text,
                                                                      FilterDialect dialect);

}  // namespace trainyard::control::internal

namespace trainyard::control {

struct ListFilter::Node {  // the shape filter_syntax::MapTerms builds
  using Type = filter_syntax::Node::Type;
  Type type = Type::kTerm;
  std::unique_ptr<const Node> left;   // kAnd, kOr, kNot
  std::unique_ptr<const Node> right;  // kAnd, kOr
  internal::FilterTerm term;          // kTerm
};

}  // namespace trainyard::control
