#include "cli/output/job_output.h"

#include <ctime>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/check.h"
#include "cli/output/table.h"
#include "cli/output/yaml_printer.h"
#include "model/json_codec.h"

namespace trainyard::cli {
namespace {

constexpr const char* kDateFormat = "%Y-%m-%dT%H:%M:%S";

std::string FormatTm(const std::tm& tm) {
  char text[64];
  const std::size_t n = std::strftime(text, sizeof(text), kDateFormat, &tm);
  return std::string(text, n);
}

std::string Dump(const nlohmann::ordered_json& json) {
  return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// `text` is YAML we print ourselves from valid JSON, so formatting cannot fail.
std::string Yaml(const std::string& json, KeyOrder order) {
  auto yaml = FormatYaml(json, order);
  TY_CHECK(yaml.ok()) << yaml.status().ToString();
  return *std::move(yaml);
}

}  // namespace

std::string LocalDate(WallTime time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  return FormatTm(tm);
}

Result<JobFormat> ParseJobFormat(std::string_view name) {
  if (name == "yaml") {
    return JobFormat::kYaml;
  }
  if (name == "json") {
    return JobFormat::kJson;
  }
  return Status::InvalidArgument("argument --format: Invalid choice: '" + std::string(name) +
                                 "'. Valid choices are [json, yaml].");
}

std::string FormatJob(const model::Job& job, JobFormat format) {
  const std::string encoded = model::EncodeJob(job);
  if (format == JobFormat::kYaml) {
    return Yaml(encoded, KeyOrder::kSorted);
  }
  // nlohmann::json (not ordered) keeps object keys sorted, as gcloud's json printer does.
  return nlohmann::json::parse(encoded).dump(2, ' ', false,
                                             nlohmann::json::error_handler_t::replace) +
         "\n";
}

std::string FormatJobsTable(const std::vector<model::Job>& jobs, const DateFormatter& date) {
  std::vector<std::vector<std::string>> rows;
  rows.reserve(jobs.size());
  for (const model::Job& job : jobs) {
    rows.push_back({job.job_id, std::string(model::JobStateName(job.state)),
                    job.create_time ? date(*job.create_time) : std::string()});
  }
  return FormatTable({"JOB_ID", "STATUS", "CREATED"}, rows);
}

std::string FormatSubmittedJob(const model::Job& job, const DateFormatter& date) {
  nlohmann::ordered_json summary = {{"jobId", job.job_id},
                                    {"state", std::string(model::JobStateName(job.state))}};
  if (job.start_time) {
    summary["startTime"] = date(*job.start_time);
  }
  if (job.end_time) {
    summary["endTime"] = date(*job.end_time);
  }
  return Yaml(Dump(summary), KeyOrder::kSorted);  // gcloud's yaml printer sorts the keys
}

}  // namespace trainyard::cli
