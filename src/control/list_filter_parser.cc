// Builds the list filter's tree (list_filter_ast.h) from base/filter_syntax's parse: each term's
// field, operator and value checked against the job fields, in text order.
#include <cctype>
#include <memory>
#include <string>
#include <utility>

#include "base/time_format.h"
#include "control/list_filter_ast.h"

namespace trainyard::control::internal {
namespace {

using Node = ListFilter::Node;
using NodePtr = std::unique_ptr<const Node>;
using filter_syntax::FilterError;

std::string StateNames(FilterDialect dialect) {
  std::string names;
  for (int s = 1; s <= static_cast<int>(model::JobState::kCancelled); ++s) {
    names += names.empty() ? "" : ", ";
    names += StateNameIn(dialect, static_cast<model::JobState>(s));
  }
  return names;
}

bool IsStateName(FilterDialect dialect, std::string_view name) {
  for (int s = 0; s <= static_cast<int>(model::JobState::kCancelled); ++s) {
    if (StateNameIn(dialect, static_cast<model::JobState>(s)) == name) {
      return true;
    }
  }
  return false;
}

// Checks the term's value against its field's type and stores it in `out`.
Status InterpretValue(const filter_syntax::Term& term, FilterDialect dialect, FilterTerm& out) {
  const std::size_t at = term.value_position;
  std::string value = term.value;
  const bool ordering =
      out.op != FilterOp::kEq && out.op != FilterOp::kNe && out.op != FilterOp::kHas;
  if (out.op == FilterOp::kHas && value == "*") {
    out.presence = true;
    return Status();
  }
  if (out.op == FilterOp::kHas && value.ends_with('*')) {
    value.pop_back();
    out.prefix = true;
  }
  switch (out.field->kind) {
    case FieldKind::kLabels:
      if (out.op != FilterOp::kHas || out.prefix) {
        return FilterError(at, "labels only supports labels:KEY; compare a value with labels.KEY");
      }
      break;
    case FieldKind::kState:
      if (ordering) {
        return FilterError(at, "state supports only =, != and :");
      }
      for (char& c : value) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      }
      if (!out.prefix && !IsStateName(dialect, value)) {
        return FilterError(at,
                           "unknown state \"" + value + "\"; states are " + StateNames(dialect));
      }
      break;
    case FieldKind::kTime: {
      const std::optional<WallTime> time = ParseTimestamp(value);
      if (out.prefix || !time.has_value()) {
        return FilterError(at, "expected an RFC 3339 time such as 2024-01-31T12:00:00Z");
      }
      out.time = *time;
      break;
    }
    case FieldKind::kText:
    case FieldKind::kLabel:
      break;
  }
  out.text = std::move(value);
  return Status();
}

Result<FilterTerm> InterpretTerm(const filter_syntax::Term& term, FilterDialect dialect) {
  FilterTerm out;
  out.field = FindFilterField(term.path, out.label_key, dialect);
  if (out.field == nullptr) {
    return FilterError(term.position, "unknown field \"" + term.field + "\"; fields are " +
                                          FilterFieldNames(dialect));
  }
  if (term.op == FilterOp::kRegex || term.op == FilterOp::kNotRegex) {
    return FilterError(term.op_position, "the operator " +
                                             std::string(filter_syntax::OpSpelling(term.op)) +
                                             " (regular expression) is not supported; use =, "
                                             "!=, <, <=, >, >= or : (with a trailing * for a "
                                             "prefix)");
  }
  out.op = term.op;
  TY_RETURN_IF_ERROR(InterpretValue(term, dialect, out));
  return out;
}

}  // namespace

Result<NodePtr> ParseFilterExpression(std::string_view text, FilterDialect dialect) {
  Result<std::unique_ptr<const filter_syntax::Node>> syntax = filter_syntax::Parse(text);
  if (!syntax.ok()) {
    return syntax.status();
  }
  if (*syntax == nullptr) {
    return NodePtr();  // blank: every job matches
  }
  return filter_syntax::MapTerms<Node>(**syntax, [dialect](const filter_syntax::Term& term) {
    return InterpretTerm(term, dialect);
  });
}

}  // namespace trainyard::control::internal
