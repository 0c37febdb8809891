// libFuzzer target for the logging filter (logs/log_filter.h, on base/filter_syntax.h). Every
// input must give a filter or an INVALID_ARGUMENT, never a crash; a filter that matches an entry
// must have a scope that admits it (the scope is what lets a query skip files, so an unsound one
// would silently lose log lines). Audit entries (LogSource::audit) hold a JSON record that
// protoPayload terms parse: a well-formed one, and the input itself as a damaged one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "base/time_format.h"
#include "logs/log_filter.h"

namespace trainyard::logs {
namespace {

void CheckScopeAdmits(const LogFilter& filter, const LogEntry& entry) {
  if (!filter.Matches(entry)) {
    return;
  }
  const LogFilter::Scope& scope = filter.scope();
  const LogSource& source = *entry.source;
  TY_CHECK(!scope.job_id || *scope.job_id == source.job_id);
  TY_CHECK(!scope.project || *scope.project == source.project);
  TY_CHECK(!scope.task_names || scope.task_names->contains(source.task_name));
  const WallTime time = *ParseTimestamp(entry.timestamp);
  TY_CHECK(!scope.min_time || *scope.min_time <= time);
  TY_CHECK(!scope.max_time || time <= *scope.max_time);
}

void FuzzOne(std::string_view text) {
  const Result<LogFilter> filter = LogFilter::Parse(text);
  if (!filter.ok()) {
    TY_CHECK(filter.status().code() == Code::kInvalidArgument) << filter.status().ToString();
    return;
  }
  static const LogSource kSources[] = {
      {.path = "", .project = "p", .job_id = "job_1", .task_name = "master-replica-0"},
      {.path = "",
       .project = "p",
       .job_id = "job_1",
       .task_name = "worker-replica-1",
       .trial_id = "3"},
      {.path = "", .project = "p", .job_id = "job_2", .task_name = "service", .service = true},
      {.path = "",
       .project = "p",
       .task_name = "cloudaudit.googleapis.com%2Factivity",
       .audit = true},
  };
  const std::string texts[] = {
      "Epoch 1/10 loss=0.31",
      R"({"protoPayload":{"methodName":"m","status":{"code":7},"authorizationInfo":[{}]},)"
      R"("resource":{"type":"audited_resource","labels":{"method":"m"}}})",
      std::string(text)};
  for (const LogSource& source : kSources) {
    for (const char* timestamp : {"1970-01-01T01:00:00.000000Z", "2026-11-21T09:35:01.760285Z"}) {
      for (const std::string& line : texts) {
        const LogEntry entry{.timestamp = timestamp,
                             .insert_id = "0000000000000042-" + source.task_name,
                             .severity = Severity::kWarning,
                             .text = line,
                             .source = &source};
        CheckScopeAdmits(*filter, entry);
      }
    }
  }
}

}  // namespace
}  // namespace trainyard::logs

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::logs::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
