// Recursive-descent parser for the grammar in filter_syntax.h.
#include "base/filter_syntax.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

namespace trainyard::filter_syntax {
namespace {

using NodePtr = std::unique_ptr<const Node>;

constexpr std::string_view kOperators = "=, !=, <, <=, >, >=, :";
constexpr std::string_view kBareValueHint =
    "a bare value is not supported; compare a field with it, as in FIELD:VALUE";

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool IsNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}
bool IsQuote(char c) {
  return c == '"' || c == '\'';
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<NodePtr> Run() {
    if (text_.size() > kMaxLength) {
      return FilterError(1,
                         "the filter is longer than " + std::to_string(kMaxLength) + " characters");
    }
    SkipSpaces();
    if (AtEnd()) {
      return NodePtr();  // blank: everything matches
    }
    NodePtr root = ParseSequence(0);
    if (root != nullptr && !AtEnd()) {
      Fail(pos_, "unexpected ')'");
    }
    if (!error_.ok()) {
      return error_;
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
    if (ConsumeKeyword("NOT") || Consume('-')) {
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
    auto node = std::make_unique<Node>();
    Term& term = node->term;
    term.position = pos_ + 1;
    if (!ParseField(term)) {
      return nullptr;
    }
    if (term.field == "AND" || term.field == "OR" || term.field == "NOT") {
      return Fail(term.position - 1, "expected a term, found " + term.field);
    }
    SkipSpaces();
    term.op_position = pos_ + 1;
    if (!ParseOperator(term.op)) {
      std::string what =
          "expected an operator (" + std::string(kOperators) + ") after \"" + term.field + "\"";
      if (AtEnd() || IsSpace(Peek()) || Peek() == ')') {
        what += "; " + std::string(kBareValueHint);
      }
      return Fail(pos_, what);
    }
    SkipSpaces();
    term.value_position = pos_ + 1;
    if (!ParseValue(term)) {
      return nullptr;
    }
    return node;
  }

  // FIELD := NAME ("." (NAME | QUOTED))*; an empty segment ("labels.") is left to the user to
  // refuse as an unknown field.
  bool ParseField(Term& term) {
    const std::size_t start = pos_;
    if (!IsNameStart(Peek())) {
      const char c = Peek();
      if (std::isprint(static_cast<unsigned char>(c)) == 0) {
        Fail(pos_, "expected a field name, found a control character");
      } else if (IsQuote(c) || std::isdigit(static_cast<unsigned char>(c)) != 0) {
        Fail(pos_, std::string("expected a field name, found '") + c + "'; " +
                       std::string(kBareValueHint));
      } else {
        Fail(pos_, std::string("expected a field name, found '") + c + "'");
      }
      return false;
    }
    term.path.emplace_back();
    while (!AtEnd()) {
      if (IsNameChar(Peek())) {
        term.path.back() += text_[pos_++];
      } else if (Consume('.')) {
        term.path.emplace_back();
        if (IsQuote(Peek())) {
          const std::optional<std::string> segment = ParseQuoted("field name");
          if (!segment.has_value()) {
            return false;
          }
          term.path.back() = *segment;
          if (Peek() != '.') {
            break;  // a quoted segment ends the field unless a '.' follows
          }
        }
      } else {
        break;
      }
    }
    term.field = std::string(text_.substr(start, pos_ - start));
    return true;
  }

  bool ParseOperator(Op& op) {
    static constexpr std::pair<std::string_view, Op> kOps[] = {
        {"<=", Op::kLe},    {">=", Op::kGe},       {"!=", Op::kNe},
        {"=~", Op::kRegex}, {"!~", Op::kNotRegex}, {"=", Op::kEq},
        {"<", Op::kLt},     {">", Op::kGt},        {":", Op::kHas}};
    for (const auto& [spelling, value] : kOps) {
      if (text_.substr(pos_).starts_with(spelling)) {
        pos_ += spelling.size();
        op = value;
        return true;
      }
    }
    return false;
  }

  // A quoted string or a bare word up to white space or a parenthesis.
  bool ParseValue(Term& term) {
    if (IsQuote(Peek())) {
      std::optional<std::string> value = ParseQuoted("value");
      if (!value.has_value()) {
        return false;
      }
      term.value = std::move(*value);
      term.quoted = true;
      return true;
    }
    const std::size_t start = pos_;
    while (!AtEnd() && !IsSpace(Peek()) && Peek() != '(' && Peek() != ')') {
      ++pos_;
    }
    if (pos_ == start) {
      Fail(start, "expected a value");
      return false;
    }
    term.value = std::string(text_.substr(start, pos_ - start));
    return true;
  }

  // At a quote: the string up to the matching quote, with backslash escapes resolved.
  std::optional<std::string> ParseQuoted(std::string_view what) {
    const std::size_t start = pos_;
    const char quote = text_[pos_++];
    std::string out;
    while (!AtEnd() && Peek() != quote) {
      if (Peek() == '\\' && pos_ + 1 < text_.size()) {
        ++pos_;
      }
      out += text_[pos_++];
    }
    if (!Consume(quote)) {
      Fail(start, "this quoted " + std::string(what) + " is never closed");
      return std::nullopt;
    }
    return out;
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

  // Records the first error only: it is the one that explains the rest. `at` is 0-based.
  NodePtr Fail(std::size_t at, const std::string& what) {
    if (error_.ok()) {
      error_ = FilterError(at + 1, what);
    }
    return nullptr;
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  bool Consume(char c) {
    if (AtEnd() || Peek() != c) {
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
  Status error_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string_view OpSpelling(Op op) {
  switch (op) {
    case Op::kEq:
      return "=";
    case Op::kNe:
      return "!=";
    case Op::kLt:
      return "<";
    case Op::kLe:
      return "<=";
    case Op::kGt:
      return ">";
    case Op::kGe:
      return ">=";
    case Op::kHas:
      return ":";
    case Op::kRegex:
      return "=~";
    case Op::kNotRegex:
      return "!~";
  }
  return "?";
}

Result<std::unique_ptr<const Node>> Parse(std::string_view text) {
  return Parser(text).Run();
}

std::string CanonicalField(const std::vector<std::string>& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const std::string& segment = path[i];
    out += i == 0 ? "" : ".";
    if (!segment.empty() && IsNameStart(segment[0]) &&
        std::all_of(segment.begin(), segment.end(), IsNameChar)) {
      out += segment;
      continue;
    }
    out += '"';
    for (const char c : segment) {
      if (c == '"' || c == '\\') {
        out += '\\';
      }
      out += c;
    }
    out += '"';
  }
  return out;
}

Status FilterError(std::size_t position, std::string_view what) {
  return Status::InvalidArgument(std::vector<FieldViolation>{
      {"filter",
       "Invalid filter at character " + std::to_string(position) + ": " + std::string(what)}});
}

}  // namespace trainyard::filter_syntax
