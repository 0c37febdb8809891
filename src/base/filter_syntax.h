// The syntax of Google's filter languages, shared by the jobs list filter (AIP-160,
// docs/reference/ai-platform-training.md §1.6) and the logging filter
// (docs/reference/ai-platform-training.md §10.1): text in, a tree of AND/OR/NOT/comparison nodes
// out. It knows no fields: each user checks the terms' fields, operators and values against its own
// domain and reports problems with `FilterError`, so every filter error reads the same.
//
//   filter := expr ;  expr := seq ;  seq := or (["AND"] or)* ;  or := unary ("OR" unary)*
//   unary  := ("NOT" | "-") unary | "(" expr ")" | FIELD OP VALUE
//   FIELD  := NAME ("." (NAME | QUOTED))*    NAME := a letter, then letters, digits, '_', '-'
//   OP     := "=" | "!=" | "<" | "<=" | ">" | ">=" | ":" | "=~" | "!~"
//   VALUE  := QUOTED | a bare word (up to white space or a parenthesis)
//   QUOTED := a "double" or 'single' quoted string; a backslash escapes the next character
//
// As AIP-160 and Cloud Logging specify, OR binds tighter than AND: `a AND b OR c` is
// `a AND (b OR c)`; adjacent terms are ANDed. Keywords are upper case. `=~` and `!~` (regular
// expressions) are recognised so that users can refuse them by name; neither user supports them.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::filter_syntax {

// Bounds that keep a hostile filter from exhausting the stack or the CPU.
inline constexpr std::size_t kMaxLength = 4096;
inline constexpr int kMaxDepth = 64;

enum class Op { kEq, kNe, kLt, kLe, kGt, kGe, kHas, kRegex, kNotRegex };

// "=", "!=", "<", "<=", ">", ">=", ":", "=~", "!~".
std::string_view OpSpelling(Op op);

// One comparison `FIELD OP VALUE`. Positions are 1-based characters of the filter text.
struct Term {
  // As written, `labels."ml.googleapis.com/trial_id"`, and its segments unquoted,
  // {"labels", "ml.googleapis.com/trial_id"}.
  std::string field;
  std::vector<std::string> path;
  Op op = Op::kEq;
  std::string value;               // quotes removed and escapes resolved
  bool quoted = false;             // a quoted string: a user may read `"*"` unlike `*`
  std::size_t position = 0;        // of the field: where the term starts
  std::size_t op_position = 0;     // of the operator
  std::size_t value_position = 0;  // of the value (its opening quote when quoted)
};

struct Node {
  enum class Type { kAnd, kOr, kNot, kTerm };
  Type type = Type::kTerm;
  std::unique_ptr<const Node> left;   // kAnd, kOr, kNot
  std::unique_ptr<const Node> right;  // kAnd, kOr
  Term term;                          // kTerm
};

// The tree of `text`; null for blank text (the filter that matches everything). A malformed
// filter is a `FilterError` at the first problem, saying what was expected there.
Result<std::unique_ptr<const Node>> Parse(std::string_view text);

// The canonical spelling of a field path, for looking fields up by name: segments joined by '.',
// each in double quotes (with '"' and '\\' escaped) unless it is a NAME. So
// `labels."ml.googleapis.com/trial_id"`, and `a."b".c` is `a.b.c`.
std::string CanonicalField(const std::vector<std::string>& path);

// INVALID_ARGUMENT on field "filter": "Invalid filter at character <position>: <what>".
Status FilterError(std::size_t position, std::string_view what);

// A user's own tree of the same shape: `OutNode` has `type` (a `Node::Type`), `left` and `right`
// (`std::unique_ptr<const OutNode>`) and `term`, and `interpret` turns a `Term` into a
// `Result<decltype(OutNode::term)>`. Terms are interpreted in text order; the first error is
// returned, so it is the leftmost problem.
template <typename OutNode, typename Interpret>
Result<std::unique_ptr<const OutNode>> MapTerms(const Node& node, const Interpret& interpret) {
  auto out = std::make_unique<OutNode>();
  out->type = node.type;
  if (node.type == Node::Type::kTerm) {
    auto term = interpret(node.term);
    if (!term.ok()) {
      return term.status();
    }
    out->term = std::move(*term);
    return std::unique_ptr<const OutNode>(std::move(out));
  }
  Result<std::unique_ptr<const OutNode>> left = MapTerms<OutNode>(*node.left, interpret);
  if (!left.ok()) {
    return left.status();
  }
  out->left = std::move(*left);
  if (node.right != nullptr) {
    Result<std::unique_ptr<const OutNode>> right = MapTerms<OutNode>(*node.right, interpret);
    if (!right.ok()) {
      return right.status();
    }
    out->right = std::move(*right);
  }
  return std::unique_ptr<const OutNode>(std::move(out));
}

}  // namespace trainyard::filter_syntax
