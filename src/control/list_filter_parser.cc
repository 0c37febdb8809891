// Recursive-descent parser for the list filter grammar in list_filter.h.
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

// Bounds that keep a hostile filter from exhausting the stack or the CPU.
constexpr std::size_t kMaxFilterLength = 4096;
constexpr int kMaxDepth = 64;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool IsFieldStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}
bool IsFieldChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
}

std::string StateNames() {
  std::string names;
  for (int s = 1; s <= static_cast<int>(model::JobState::kCancelled); ++s) {
    names += names.empty() ? "" : ", ";
    names += model::JobStateName(static_cast<model::JobState>(s));
  }
  return names;
}

bool IsStateName(std::string_view name) {
  for (int s = 0; s <= static_cast<int>(model::JobState::kCancelled); ++s) {
    if (model::JobStateName(static_cast<model::JobState>(s)) == name) {
      return true;
    }
  }
  return false;
}

class Parser {
 public:
  Parser(std::string_view text, Status& error) : text_(text), error_(error) {}

  NodePtr Run() {
    if (text_.size() > kMaxFilterLength) {
      return Fail(0,
                  "the filter is longer than " + std::to_string(kMaxFilterLength) + " characters");
    }
    SkipSpaces();
    if (AtEnd()) {
      return nullptr;  // blank: every job matches
    }
    NodePtr root = ParseSequence(0);
    if (root != nullptr && !AtEnd()) {
      return Fail(pos_, "unexpected ')'");
    }
    return root;
  }

 private:
  // seq := or (["AND"] or)*   (AND, written or implied, binds loosest)
  NodePtr ParseSequence(int depth) {
    NodePtr node = ParseOr(depth);
    while (node != nullptr) {
      SkipSpaces();
      if (AtEnd() || Peek() == ')') {
        break;
      }
      ConsumeKeyword("AND");  // optional: adjacent terms are ANDed too
      node = Combine(Node::Type::kAnd, std::move(node), ParseOr(depth));
    }
    return node;
  }

  // or := unary ("OR" unary)*
  NodePtr ParseOr(int depth) {
    NodePtr node = ParseUnary(depth);
    while (node != nullptr) {
      SkipSpaces();
      if (!ConsumeKeyword("OR")) {
        break;
      }
      node = Combine(Node::Type::kOr, std::move(node), ParseUnary(depth));
    }
    return node;
  }

  // unary := ("NOT" | "-") unary | "(" seq ")" | term
  NodePtr ParseUnary(int depth) {
    if (depth > kMaxDepth) {
      return Fail(pos_, "the filter nests deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    SkipSpaces();
    if (AtEnd()) {
      return Fail(pos_, "expected a term, found the end of the filter");
    }
    if (ConsumeKeyword("NOT") || (Peek() == '-' && Consume('-'))) {
      NodePtr operand = ParseUnary(depth + 1);
      if (operand == nullptr) {
        return nullptr;
      }
      auto node = std::make_unique<Node>();
      node->type = Node::Type::kNot;
      node->left = std::move(operand);
      return node;
    }
    if (Consume('(')) {
      const std::size_t open = pos_ - 1;
      NodePtr inner = ParseSequence(depth + 1);
      if (inner == nullptr) {
        return nullptr;
      }
      SkipSpaces();
      if (!Consume(')')) {
        return Fail(open, "this '(' is never closed");
      }
      return inner;
    }
    return ParseTerm();
  }

  // term := FIELD OP VALUE
  NodePtr ParseTerm() {
    const std::size_t field_at = pos_;
    if (!IsFieldStart(Peek())) {
      const bool printable = std::isprint(static_cast<unsigned char>(Peek())) != 0;
      return Fail(pos_, printable
                            ? std::string("expected a field name, found '") + Peek() + "'"
                            : std::string("expected a field name, found a control character"));
    }
    while (!AtEnd() && IsFieldChar(Peek())) {
      ++pos_;
    }
    const std::string_view name = text_.substr(field_at, pos_ - field_at);
    if (name == "AND" || name == "OR" || name == "NOT") {
      return Fail(field_at, "expected a term, found " + std::string(name));
    }
    auto node = std::make_unique<Node>();
    FilterTerm& term = node->term;
    term.field = FindFilterField(name, term.label_key);
    if (term.field == nullptr) {
      return Fail(field_at,
                  "unknown field \"" + std::string(name) + "\"; fields are " + FilterFieldNames());
    }
    SkipSpaces();
    const std::size_t op_at = pos_;
    if (!ParseOperator(term.op)) {
      return Fail(op_at, "expected an operator (=, !=, <, <=, >, >=, :) after \"" +
                             std::string(name) + "\"");
    }
    SkipSpaces();
    const std::size_t value_at = pos_;
    std::string value;
    if (!ParseValue(value)) {
      return nullptr;
    }
    if (!Interpret(value, term, value_at)) {
      return nullptr;
    }
    return node;
  }

  bool ParseOperator(FilterOp& op) {
    static constexpr std::pair<std::string_view, FilterOp> kOps[] = {
        {"<=", FilterOp::kLe}, {">=", FilterOp::kGe}, {"!=", FilterOp::kNe}, {"=", FilterOp::kEq},
        {"<", FilterOp::kLt},  {">", FilterOp::kGt},  {":", FilterOp::kHas}};
    for (const auto& [spelling, value] : kOps) {
      if (text_.substr(pos_).starts_with(spelling)) {
        pos_ += spelling.size();
        op = value;
        return true;
      }
    }
    return false;
  }

  // A quoted string (with \" \' \\ escapes) or a bare word up to white space or a parenthesis.
  bool ParseValue(std::string& value) {
    const std::size_t start = pos_;
    if (!AtEnd() && (Peek() == '"' || Peek() == '\'')) {
      const char quote = text_[pos_++];
      while (!AtEnd() && Peek() != quote) {
        if (Peek() == '\\' && pos_ + 1 < text_.size()) {
          ++pos_;
        }
        value += text_[pos_++];
      }
      if (!Consume(quote)) {
        Fail(start, "this quoted value is never closed");
        return false;
      }
      return true;
    }
    while (!AtEnd() && !IsSpace(Peek()) && Peek() != '(' && Peek() != ')') {
      value += text_[pos_++];
    }
    if (value.empty()) {
      Fail(start, "expected a value");
      return false;
    }
    return true;
  }

  // Checks `value` against the field's type and stores it in `term`.
  bool Interpret(std::string value, FilterTerm& term, std::size_t at) {
    const bool ordering =
        term.op != FilterOp::kEq && term.op != FilterOp::kNe && term.op != FilterOp::kHas;
    if (term.op == FilterOp::kHas && value == "*") {
      term.presence = true;
      return true;
    }
    if (term.op == FilterOp::kHas && value.ends_with('*')) {
      value.pop_back();
      term.prefix = true;
    }
    switch (term.field->kind) {
      case FieldKind::kLabels:
        if (term.op != FilterOp::kHas || term.prefix) {
          return FailBool(at, "labels only supports labels:KEY; compare a value with labels.KEY");
        }
        break;
      case FieldKind::kState:
        if (ordering) {
          return FailBool(at, "state supports only =, != and :");
        }
        for (char& c : value) {
          c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
        if (!term.prefix && !IsStateName(value)) {
          return FailBool(at, "unknown state \"" + value + "\"; states are " + StateNames());
        }
        break;
      case FieldKind::kTime: {
        const std::optional<WallTime> time = ParseTimestamp(value);
        if (term.prefix || !time.has_value()) {
          return FailBool(at, "expected an RFC 3339 time such as 2024-01-31T12:00:00Z");
        }
        term.time = *time;
        break;
      }
      case FieldKind::kText:
      case FieldKind::kLabel:
        break;
    }
    term.text = std::move(value);
    return true;
  }

  NodePtr Combine(Node::Type type, NodePtr left, NodePtr right) {
    if (left == nullptr || right == nullptr) {
      return nullptr;
    }
    auto node = std::make_unique<Node>();
    node->type = type;
    node->left = std::move(left);
    node->right = std::move(right);
    return node;
  }

  // A keyword is a whole word: followed by white space, a parenthesis or the end.
  bool ConsumeKeyword(std::string_view keyword) {
    if (!text_.substr(pos_).starts_with(keyword)) {
      return false;
    }
    const std::size_t end = pos_ + keyword.size();
    if (end < text_.size() && !IsSpace(text_[end]) && text_[end] != '(') {
      return false;
    }
    pos_ = end;
    return true;
  }

  NodePtr Fail(std::size_t at, const std::string& what) {
    FailBool(at, what);
    return nullptr;
  }

  // Records the first error only: it is the one that explains the rest.
  bool FailBool(std::size_t at, const std::string& what) {
    if (error_.ok()) {
      error_ = Status::InvalidArgument(std::vector<FieldViolation>{
          {"filter", "Invalid filter at character " + std::to_string(at + 1) + ": " + what}});
    }
    return false;
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  bool Consume(char c) {
    if (Peek() != c || AtEnd()) {
      return false;
    }
    ++pos_;
    return true;
  }
  void SkipSpaces() {
    while (!AtEnd() && IsSpace(Peek())) {
      ++pos_;
    }
  }

  std::string_view text_;
  Status& error_;
  std::size_t pos_ = 0;
};

}  // namespace

NodePtr ParseFilterExpression(std::string_view text, Status& error) {
  return Parser(text, error).Run();
}

}  // namespace trainyard::control::internal
