// The `filter` of logging v2 entries:list (docs/reference/ai-platform-training.md §10.1): the
// subset of Cloud Logging's query language that gcloud's `jobs stream-logs` sends, and a little
// more, parsed once and evaluated against each entry. The syntax is shared with the jobs list
// filter (base/filter_syntax.h):
//
//   expr := seq ;  seq := or (["AND"] or)* ;  or := unary ("OR" unary)*
//   unary := ("NOT" | "-") unary | "(" expr ")" | FIELD OP VALUE
//   OP := "=" | "!=" | "<" | "<=" | ">" | ">=" | ":"
//
// Fields (a path segment may be quoted: labels."ml.googleapis.com/trial_id"):
//   resource.type                       "ml_job"; "audited_resource" for audit entries
//   resource.labels.job_id | project_id | task_name
//   labels.task_name, labels.trial_id, labels."ml.googleapis.com/trial_id"
//   logName                             "projects/<p>/logs/<task_name>"; the audit log's is
//                                       "projects/<p>/logs/cloudaudit.googleapis.com%2Factivity"
//   timestamp, receiveTimestamp         RFC 3339 with any number of fractional digits, compared
//                                       as instants (nanoseconds)
//   insertId                            compared as text (byte order)
//   severity                            a severity name, compared by rank (severity>=WARNING)
//   textPayload, jsonPayload.message    the line; `:` is a case-insensitive substring match
//   protoPayload.<path>                 an audit entry's AuditLog field (protoPayload.methodName,
//                                       protoPayload.authenticationInfo.principalEmail,
//                                       protoPayload.status.code: numbers as text); also
//   resource.labels.service | method    its audited_resource labels. Empty for other entries.
// Text fields: `=`/`!=` exact, `<`…`>=` byte order, `:` substring (case-insensitive).
// A field that is empty for an entry (no trial) compares as the empty string.
//
// Anything else is INVALID_ARGUMENT on "filter", saying where (1-based character) and what is
// wrong: an unknown field (listing the known ones), an unsupported operator (`=~`), a bad
// timestamp or severity, a bare value without a field, unbalanced parentheses.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "logs/log_entry.h"

namespace trainyard::logs {

class LogFilter {
 public:
  // Blank text: every entry matches.
  static Result<LogFilter> Parse(std::string_view text);

  LogFilter(LogFilter&&) noexcept;
  LogFilter& operator=(LogFilter&&) noexcept;
  ~LogFilter();

  bool Matches(const LogEntry& entry) const;

  // What every matching entry is known to satisfy, from the filter's top-level AND terms (and
  // ORs whose every side implies it), so a query can skip whole jobs, files and file ranges.
  // Looser than the filter is fine; never tighter.
  struct Scope {
    std::optional<std::string> project;  // resource.labels.project_id="p" (or a logName's)
    std::optional<std::string> job_id;   // resource.labels.job_id="j"
    // resource.labels.task_name / labels.task_name: the entry's task is one of these.
    std::optional<std::set<std::string>> task_names;
    std::optional<WallTime> min_time;  // timestamp >= min_time
    std::optional<WallTime> max_time;  // timestamp <= max_time (a `<` bound is kept as `<=`)
  };
  const Scope& scope() const { return scope_; }

  struct Node;  // defined in log_filter.cc

 private:
  LogFilter(std::unique_ptr<const Node> root, Scope scope);

  std::unique_ptr<const Node> root_;  // null: matches every entry
  Scope scope_;
};

}  // namespace trainyard::logs
