// The `filter` of projects.jobs.list (docs/reference/ai-platform-training.md §1.6): a subset of
// Google's list-filter language (AIP-160), parsed once and then evaluated against each job. The
// syntax is base/filter_syntax.h's (shared with the logging filter):
//
//   filter := expr ;  expr := seq ;  seq := or (["AND"] or)* ;  or := unary ("OR" unary)*
//   unary  := ("NOT" | "-") unary | "(" expr ")" | FIELD OP VALUE
//   OP     := "=" | "!=" | "<" | "<=" | ">" | ">=" | ":"
//
// As AIP-160 specifies, OR binds tighter than AND: `a AND b OR c` is `a AND (b OR c)`;
// adjacent terms are ANDed. Keywords are upper case. VALUE is a bare word (up to white space
// or a parenthesis) or a "double" / 'single' quoted string with backslash escapes. A label key
// may be quoted (`labels."team.name"`); `=~` and `!~` are refused.
//
// Fields: jobId, state, errorMessage, createTime, startTime, endTime, labels.<key>, labels, and
// trainingInput.{region, scaleTier, masterType, workerType, parameterServerType, runtimeVersion,
// pythonVersion, pythonModule, jobDir}. Meaning of the operators:
//   - text: `=`/`!=` exact; `<`…`>=` byte order; `:` ("has") is equality, or a prefix match
//     when the value ends in `*` (`jobId:census*`).
//   - state: `=`, `!=`, `:` with a state name (any case); no ordering.
//   - times: RFC 3339 values compared as instants; `:` is `=`.
//   - `FIELD:*` holds when the field is set (non-empty, or a label present); `labels:KEY` when
//     label KEY is present.
//   - a comparison with an unset time or an absent label is false, except `!=` (true).
// The Vertex AI dialect (customJobs.list, hyperparameterTuningJobs.list) has the fields
// display_name, state (JOB_STATE_* names), create_time, start_time, end_time and labels, with the
// same syntax and operators.
// Value type: immutable once parsed, cheap to move; `Matches` is thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::control {

enum class FilterDialect { kMlV1, kVertex };

class ListFilter {
 public:
  // INVALID_ARGUMENT on "filter" for a malformed filter, saying where (1-based character) and
  // what was expected. Blank text gives the filter that matches every job.
  static Result<ListFilter> Parse(std::string_view text,
                                  FilterDialect dialect = FilterDialect::kMlV1);

  ListFilter(ListFilter&&) noexcept;
  ListFilter& operator=(ListFilter&&) noexcept;
  ~ListFilter();

  bool Matches(const model::Job& job) const;
  bool matches_all() const { return root_ == nullptr; }

  struct Node;  // the parsed expression; defined in list_filter.cc

 private:
  explicit ListFilter(std::unique_ptr<const Node> root);

  std::unique_ptr<const Node> root_;  // null: matches every job
};

}  // namespace trainyard::control
