// The parsed form of a list filter, shared by the parser (list_filter_parser.cc) and the
// evaluator (list_filter.cc); internal to control/.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "control/list_filter.h"
#include "model/job.h"

namespace trainyard::control::internal {

enum class FilterOp { kEq, kNe, kLt, kLe, kGt, kGe, kHas };

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

// The field named `name`, or nullptr; for `labels.<key>` the key goes to `label_key`.
const FilterField* FindFilterField(std::string_view name, std::string& label_key);

// The accepted field names, for error messages.
std::string FilterFieldNames();

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

// Parses `text` into an expression tree; null for a blank filter. On a syntax error sets `error`
// (INVALID_ARGUMENT on "filter") and returns null.
std::unique_ptr<const ListFilter::Node> ParseFilterExpression(std::string_view text, Status& error);

}  // namespace trainyard::control::internal

namespace trainyard::control {

struct ListFilter::Node {
  enum class Type { kAnd, kOr, kNot, kTerm };
  Type type = Type::kTerm;
  std::unique_ptr<const Node> left;   // kAnd, kOr, kNot
  std::unique_ptr<const Node> right;  // kAnd, kOr
  internal::FilterTerm term;          // kTerm
};

}  // namespace trainyard::control
