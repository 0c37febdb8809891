#include "cli/follow/log_query.h"

#include <fmt/format.h>

#include "base/time_format.h"

namespace trainyard::cli {

std::vector<std::string> JobLogFilters(std::string_view job_id, std::string_view task_name) {
  std::vector<std::string> filters = {R"((resource.type="ml_job" OR resource.type="cloudml_job"))",
                                      fmt::format(R"(resource.labels.job_id="{}")", job_id)};
  if (!task_name.empty()) {
    filters.push_back(
        fmt::format(R"((resource.labels.task_name="{0}" OR labels.task_name="{0}"))", task_name));
  }
  return filters;
}

std::vector<std::string> VertexJobLogFilters(std::string_view job_id, std::string_view task_name) {
  std::vector<std::string> filters = {R"(resource.type="ml_job")",
                                      fmt::format(R"(resource.labels.job_id="{}")", job_id)};
  if (!task_name.empty()) {
    filters.push_back(fmt::format(R"(resource.labels.task_name="{}")", task_name));
  }
  return filters;
}

bool LogPosition::Update(std::string_view timestamp, std::string_view insert_id) {
  if (timestamp < timestamp_) {
    return false;
  }
  if (timestamp == timestamp_) {
    if (insert_id <= insert_id_) {
      return false;
    }
    insert_id_ = std::string(insert_id);
    need_insert_id_ = true;
    return true;
  }
  timestamp_ = std::string(timestamp);
  insert_id_ = std::string(insert_id);
  need_insert_id_ = false;
  return true;
}

std::string LogPosition::LowerBound() const {
  if (need_insert_id_) {
    return fmt::format(R"(((timestamp="{0}" AND insertId>"{1}") OR timestamp>"{0}"))", timestamp_,
                       insert_id_);
  }
  return fmt::format(R"(timestamp>="{}")", timestamp_);
}

std::string LogUpperBound(WallTime upper) {
  return fmt::format(R"(timestamp<"{}")", FormatTimestampMicros(upper));
}

std::string PollFilter(const std::vector<std::string>& filters, const LogPosition& position,
                       std::optional<WallTime> upper) {
  std::vector<std::string> clauses = filters;
  clauses.push_back(position.LowerBound());
  if (upper) {
    clauses.push_back(LogUpperBound(*upper));
  }
  return fmt::format("{}", fmt::join(clauses, " AND "));
}

}  // namespace trainyard::cli
