// The logging filter: base/filter_syntax's tree with each term checked against the entry fields
// (the table below), evaluated per entry, and the scope a query can seek by.
#include "logs/log_filter.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/filter_syntax.h"
#include "base/time_format.h"

namespace trainyard::logs {

using filter_syntax::FilterError;
using filter_syntax::Op;

namespace {

enum class Kind { kText, kTime, kSeverity };

// What a term on the field says about every matching entry (LogFilter::Scope).
enum class Bound { kNone, kProject, kJob, kTask, kTime, kLogName };

const LogSource& SourceOf(const LogEntry& entry) {
  static const LogSource kNoSource;
  return entry.source != nullptr ? *entry.source : kNoSource;
}

struct Field {
  std::string_view name;  // filter_syntax::CanonicalField of its path
  Kind kind = Kind::kText;
  Bound bound = Bound::kNone;
  // kText: the entry's value; `scratch` holds it when it has to be built.
  std::string_view (*text)(const LogEntry& entry, std::string& scratch) = nullptr;
};

// The fields of a LogEntry (docs/reference/ai-platform-training.md §10.2) that a filter may name.
const std::array kFields = {
    Field{"resource.type", Kind::kText, Bound::kNone,
          [](const LogEntry& e, std::string&) -> std::string_view {
            return SourceOf(e).audit ? "audited_resource" : "ml_job";
          }},
    Field{"resource.labels.project_id", Kind::kText, Bound::kProject,
          [](const LogEntry& e, std::string&) -> std::string_view { return SourceOf(e).project; }},
    Field{"resource.labels.job_id", Kind::kText, Bound::kJob,
          [](const LogEntry& e, std::string&) -> std::string_view { return SourceOf(e).job_id; }},
    Field{
        "resource.labels.task_name", Kind::kText, Bound::kTask,
        [](const LogEntry& e, std::string&) -> std::string_view { return SourceOf(e).task_name; }},
    Field{
        "labels.task_name", Kind::kText, Bound::kTask,
        [](const LogEntry& e, std::string&) -> std::string_view { return SourceOf(e).task_name; }},
    Field{"labels.trial_id", Kind::kText, Bound::kNone,
          [](const LogEntry& e, std::string&) -> std::string_view { return SourceOf(e).trial_id; }},
    Field{"labels.\"ml.googleapis.com/trial_id\"", Kind::kText, Bound::kNone,
          [](const LogEntry& e, std::string&) -> std::string_view { return SourceOf(e).trial_id; }},
    Field{"logName", Kind::kText, Bound::kLogName,
          [](const LogEntry& e, std::string& scratch) -> std::string_view {
            scratch = "projects/" + SourceOf(e).project + "/logs/" + SourceOf(e).task_name;
            return scratch;
          }},
    Field{"timestamp", Kind::kTime, Bound::kTime},
    Field{"receiveTimestamp", Kind::kTime, Bound::kTime},  // the same instant as timestamp
    Field{"insertId", Kind::kText, Bound::kNone,
          [](const LogEntry& e, std::string&) -> std::string_view { return e.insert_id; }},
    Field{"severity", Kind::kSeverity},
    Field{"textPayload", Kind::kText, Bound::kNone,
          [](const LogEntry& e, std::string&) -> std::string_view {
            return SourceOf(e).service ? std::string_view() : std::string_view(e.text);
          }},
    Field{"jsonPayload.message", Kind::kText, Bound::kNone,
          [](const LogEntry& e, std::string&) -> std::string_view {
            return SourceOf(e).service ? std::string_view(e.text) : std::string_view();
          }},
};

// A field of an audit entry's record (logs/log_entry.h LogSource::audit): any path under
// protoPayload, and the audited_resource labels; empty for every other entry.
const Field kRecordField{"protoPayload.*", Kind::kText, Bound::kNone, nullptr};

bool IsRecordPath(const std::vector<std::string>& path) {
  if (path.size() >= 2 && path[0] == "protoPayload") {
    return true;
  }
  return path.size() == 3 && path[0] == "resource" && path[1] == "labels" &&
         (path[2] == "service" || path[2] == "method");
}

// The value at `path` in an audit entry's record, as text (numbers and booleans as JSON spells
// them); empty when the entry has none.
std::string_view RecordValue(const LogEntry& entry, const std::vector<std::string>& path,
                             std::string& scratch) {
  if (!SourceOf(entry).audit) {
    return {};
  }
  const nlohmann::json record = nlohmann::json::parse(entry.text, nullptr, false);
  const nlohmann::json* at = &record;
  for (const std::string& key : path) {
    if (!at->is_object()) {
      return {};
    }
    const auto it = at->find(key);
    if (it == at->end()) {
      return {};
    }
    at = &*it;
  }
  if (at->is_string()) {
    scratch = at->get<std::string>();
  } else if (at->is_number() || at->is_boolean()) {
    scratch = at->dump();
  } else {
    return {};
  }
  return scratch;
}

const Field* FindField(const std::vector<std::string>& path) {
  if (IsRecordPath(path)) {
    return &kRecordField;
  }
  const std::string name = filter_syntax::CanonicalField(path);
  for (const Field& field : kFields) {
    if (field.name == name) {
      return &field;
    }
  }
  return nullptr;
}

std::string FieldNames() {
  std::string names;
  for (const Field& field : kFields) {
    names += names.empty() ? "" : ", ";
    names += field.name;
  }
  return names + ", protoPayload.<field> and resource.labels.service, .method (audit entries)";
}

std::string SeverityNames() {
  std::string names;
  for (int rank = 0; rank <= static_cast<int>(Severity::kEmergency); rank += 100) {
    names += names.empty() ? "" : ", ";
    names += SeverityName(static_cast<Severity>(rank));
  }
  return names;
}

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// One comparison, its value converted to the field's type.
struct Term {
  const Field* field = nullptr;
  std::vector<std::string> record_path;  // kRecordField: where in the audit record
  Op op = Op::kEq;
  std::string text;       // kText; lower case for `:`
  bool presence = false;  // `FIELD:*`: the field is not empty
  WallTime time{};        // kTime
  Severity severity{};    // kSeverity
};

}  // namespace

struct LogFilter::Node {  // the shape filter_syntax::MapTerms builds
  using Type = filter_syntax::Node::Type;
  Type type = Type::kTerm;
  std::unique_ptr<const Node> left;
  std::unique_ptr<const Node> right;
  Term term;
};

namespace {

Result<Term> Interpret(const filter_syntax::Term& syntax) {
  Term term;
  term.field = FindField(syntax.path);
  if (term.field == nullptr) {
    return FilterError(syntax.position,
                       "unknown field \"" + syntax.field + "\"; fields are " + FieldNames());
  }
  if (term.field == &kRecordField) {
    term.record_path = syntax.path;
  }
  term.op = syntax.op;
  if (term.op == Op::kRegex || term.op == Op::kNotRegex) {
    return FilterError(syntax.op_position,
                       "the operator " + std::string(filter_syntax::OpSpelling(term.op)) +
                           " (regular expression) is not supported; use = for an exact match "
                           "or : for a substring");
  }
  switch (term.field->kind) {
    case Kind::kText:
      term.presence = term.op == Op::kHas && !syntax.quoted && syntax.value == "*";
      term.text = term.op == Op::kHas ? ToLower(syntax.value) : syntax.value;
      break;
    case Kind::kTime: {
      const std::optional<WallTime> time = ParseTimestamp(syntax.value);
      if (!time.has_value()) {
        return FilterError(syntax.value_position,
                           "expected an RFC 3339 time such as \"2024-01-31T12:00:00.000000Z\" "
                           "for " +
                               syntax.field + ", found \"" + syntax.value + "\"");
      }
      term.time = *time;
      break;
    }
    case Kind::kSeverity: {
      std::string upper(syntax.value);
      for (char& c : upper) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      }
      const std::optional<Severity> severity = ParseSeverity(upper);
      if (!severity.has_value()) {
        return FilterError(syntax.value_position, "unknown severity \"" + syntax.value +
                                                      "\"; severities are " + SeverityNames());
      }
      term.severity = *severity;
      break;
    }
  }
  return term;
}

template <typename T>
bool Compare(const T& actual, Op op, const T& value) {
  switch (op) {
    case Op::kEq:
    case Op::kHas:  // on times and severities, `:` is `=`
      return actual == value;
    case Op::kNe:
      return actual != value;
    case Op::kLt:
      return actual < value;
    case Op::kLe:
      return actual <= value;
    case Op::kGt:
      return actual > value;
    case Op::kGe:
      return actual >= value;
    case Op::kRegex:  // refused by Interpret
    case Op::kNotRegex:
      return false;
  }
  return false;
}

// ASCII case-insensitive; `lower_needle` is already lower case.
bool ContainsFolded(std::string_view haystack, std::string_view lower_needle) {
  const auto it =
      std::search(haystack.begin(), haystack.end(), lower_needle.begin(), lower_needle.end(),
                  [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != haystack.end() || lower_needle.empty();
}

bool MatchTerm(const Term& term, const LogEntry& entry) {
  switch (term.field->kind) {
    case Kind::kText: {
      std::string scratch;
      const std::string_view actual = term.field == &kRecordField
                                          ? RecordValue(entry, term.record_path, scratch)
                                          : term.field->text(entry, scratch);
      if (term.presence) {
        return !actual.empty();
      }
      if (term.op == Op::kHas) {
        return ContainsFolded(actual, term.text);
      }
      return Compare(actual, term.op, std::string_view(term.text));
    }
    case Kind::kTime: {
      const std::optional<WallTime> actual = ParseTimestamp(entry.timestamp);
      return actual.has_value() && Compare(*actual, term.op, term.time);
    }
    case Kind::kSeverity:
      return Compare(static_cast<int>(entry.severity), term.op, static_cast<int>(term.severity));
  }
  return false;
}

bool Evaluate(const LogFilter::Node& node, const LogEntry& entry) {
  switch (node.type) {
    case LogFilter::Node::Type::kAnd:
      return Evaluate(*node.left, entry) && Evaluate(*node.right, entry);
    case LogFilter::Node::Type::kOr:
      return Evaluate(*node.left, entry) || Evaluate(*node.right, entry);
    case LogFilter::Node::Type::kNot:
      return !Evaluate(*node.left, entry);
    case LogFilter::Node::Type::kTerm:
      return MatchTerm(node.term, entry);
  }
  return false;
}

using Scope = LogFilter::Scope;

// What every entry matching `term` satisfies.
Scope TermScope(const Term& term) {
  Scope scope;
  const bool equality = term.op == Op::kEq && !term.presence;
  switch (term.field->bound) {
    case Bound::kProject:
      if (equality) {
        scope.project = term.text;
      }
      break;
    case Bound::kJob:
      if (equality) {
        scope.job_id = term.text;
      }
      break;
    case Bound::kTask:
      if (equality) {
        scope.task_names = std::set<std::string>{term.text};
      }
      break;
    case Bound::kLogName: {
      // "projects/<p>/logs/<id>": the entry's project and task (its log's id).
      constexpr std::string_view kProjects = "projects/";
      constexpr std::string_view kLogs = "/logs/";
      const std::string_view name = term.text;
      const std::size_t logs = name.find(kLogs);
      if (equality && name.starts_with(kProjects) && logs != std::string_view::npos &&
          logs > kProjects.size() && name.size() > logs + kLogs.size()) {
        scope.project = std::string(name.substr(kProjects.size(), logs - kProjects.size()));
        scope.task_names = std::set<std::string>{std::string(name.substr(logs + kLogs.size()))};
      }
      break;
    }
    case Bound::kTime:
      if (term.op == Op::kEq || term.op == Op::kHas || term.op == Op::kGt || term.op == Op::kGe) {
        scope.min_time = term.time;
      }
      if (term.op == Op::kEq || term.op == Op::kHas || term.op == Op::kLt || term.op == Op::kLe) {
        scope.max_time = term.time;
      }
      break;
    case Bound::kNone:
      break;
  }
  return scope;
}

template <typename T, typename Pick>
std::optional<T> BothOf(std::optional<T> a, std::optional<T> b, Pick pick) {
  if (a.has_value() && b.has_value()) {
    return pick(std::move(*a), std::move(*b));
  }
  return a.has_value() ? std::move(a) : std::move(b);
}

// An entry matching `a AND b` satisfies both scopes: the tighter of each bound.
Scope BothScopes(Scope a, Scope b) {
  auto first = [](auto x, auto) { return x; };  // two different values: nothing matches anyway
  auto common = [](std::set<std::string> x, const std::set<std::string>& y) {
    std::erase_if(x, [&y](const std::string& task) { return !y.contains(task); });
    return x;
  };
  return Scope{
      .project = BothOf(std::move(a.project), std::move(b.project), first),
      .job_id = BothOf(std::move(a.job_id), std::move(b.job_id), first),
      .task_names = BothOf(std::move(a.task_names), std::move(b.task_names), common),
      .min_time =
          BothOf(a.min_time, b.min_time, [](WallTime x, WallTime y) { return std::max(x, y); }),
      .max_time =
          BothOf(a.max_time, b.max_time, [](WallTime x, WallTime y) { return std::min(x, y); }),
  };
}

template <typename T, typename Join>
std::optional<T> EitherOf(std::optional<T> a, std::optional<T> b, Join join) {
  if (a.has_value() && b.has_value()) {
    return join(std::move(*a), std::move(*b));
  }
  return std::nullopt;  // one side is unbounded, so the OR is
}

// Equal bounds stay; different ones or a missing one give none.
std::optional<std::string> Same(const std::optional<std::string>& a,
                                const std::optional<std::string>& b) {
  return a == b ? a : std::nullopt;
}

// An entry matching `a OR b` satisfies one of them: only bounds both sides have, loosened.
Scope EitherScope(Scope a, Scope b) {
  auto all = [](std::set<std::string> x, const std::set<std::string>& y) {
    x.insert(y.begin(), y.end());
    return x;
  };
  return Scope{
      .project = Same(a.project, b.project),
      .job_id = Same(a.job_id, b.job_id),
      .task_names = EitherOf(std::move(a.task_names), std::move(b.task_names), all),
      .min_time =
          EitherOf(a.min_time, b.min_time, [](WallTime x, WallTime y) { return std::min(x, y); }),
      .max_time =
          EitherOf(a.max_time, b.max_time, [](WallTime x, WallTime y) { return std::max(x, y); }),
  };
}

Scope ScopeOf(const LogFilter::Node& node) {
  switch (node.type) {
    case LogFilter::Node::Type::kAnd:
      return BothScopes(ScopeOf(*node.left), ScopeOf(*node.right));
    case LogFilter::Node::Type::kOr:
      return EitherScope(ScopeOf(*node.left), ScopeOf(*node.right));
    case LogFilter::Node::Type::kNot:
      return Scope{};  // sound, and gcloud never negates a bound
    case LogFilter::Node::Type::kTerm:
      return TermScope(node.term);
  }
  return Scope{};
}

}  // namespace

LogFilter::LogFilter(std::unique_ptr<const Node> root, Scope scope)
    : root_(std::move(root)), scope_(std::move(scope)) {}
LogFilter::LogFilter(LogFilter&&) noexcept = default;
LogFilter& LogFilter::operator=(LogFilter&&) noexcept = default;
LogFilter::~LogFilter() = default;

Result<LogFilter> LogFilter::Parse(std::string_view text) {
  Result<std::unique_ptr<const filter_syntax::Node>> syntax = filter_syntax::Parse(text);
  if (!syntax.ok()) {
    return syntax.status();
  }
  if (*syntax == nullptr) {
    return LogFilter(nullptr, Scope{});
  }
  Result<std::unique_ptr<const Node>> root = filter_syntax::MapTerms<Node>(**syntax, Interpret);
  if (!root.ok()) {
    return root.status();
  }
  Scope scope = ScopeOf(**root);
  return LogFilter(std::move(*root), std::move(scope));
}

bool LogFilter::Matches(const LogEntry& entry) const {
  return root_ == nullptr || Evaluate(*root_, entry);
}

}  // namespace trainyard::logs
