#include "cli/client/ml_client.h"

#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/json_codec.h"

namespace trainyard::cli {
namespace {

std::string JobsPath(std::string_view project) {
  return fmt::format("v1/projects/{}/jobs", PercentEncode(project));
}

std::string JobPath(std::string_view project, std::string_view job_id) {
  return fmt::format("{}/{}", JobsPath(project), PercentEncode(job_id));
}

Status BadAnswer(std::string_view what, const Status& status) {
  return Status::Internal(
      fmt::format("The server's answer is not a valid {}: {}", what, status.ToString()));
}

// A Job in an answer; the server speaks the same proto3 JSON as `model/`.
Result<model::Job> DecodeAnswer(const Result<std::string>& body) {
  if (!body.ok()) {
    return body.status();
  }
  auto job = model::DecodeJob(*body);
  if (!job.ok()) {
    return BadAnswer("Job", job.status());
  }
  return job;
}

}  // namespace

Result<model::Job> MlClient::CreateJob(std::string_view project, const model::Job& job,
                                       const ExplicitFields& explicit_fields) const {
  return DecodeAnswer(
      rest_.Call("POST", JobsPath(project), CreateJobRequestBody(job, explicit_fields)));
}

Result<model::Job> MlClient::GetJob(std::string_view project, std::string_view job_id) const {
  return DecodeAnswer(rest_.Call("GET", JobPath(project, job_id)));
}

Result<JobsPage> MlClient::ListJobs(std::string_view project, const ListJobsQuery& query) const {
  std::string path = fmt::format("{}?pageSize={}", JobsPath(project), query.page_size);
  if (!query.page_token.empty()) {
    path += "&pageToken=" + PercentEncode(query.page_token);
  }
  if (!query.filter.empty()) {
    path += "&filter=" + PercentEncode(query.filter);
  }
  auto body = rest_.Call("GET", path);
  if (!body.ok()) {
    return body.status();
  }
  const nlohmann::json page = nlohmann::json::parse(*body, nullptr, /*allow_exceptions=*/false);
  if (!page.is_object()) {
    return BadAnswer("ListJobsResponse", Status::InvalidArgument("not a JSON object"));
  }
  JobsPage out;
  if (const auto token = page.find("nextPageToken"); token != page.end()) {
    if (!token->is_string()) {
      return BadAnswer("ListJobsResponse",
                       Status::InvalidArgument("nextPageToken is not a string"));
    }
    out.next_page_token = token->get<std::string>();
  }
  const auto jobs = page.find("jobs");
  if (jobs == page.end()) {
    return out;
  }
  if (!jobs->is_array()) {
    return BadAnswer("ListJobsResponse", Status::InvalidArgument("jobs is not a list"));
  }
  for (const nlohmann::json& item : *jobs) {
    auto job = model::DecodeJob(item.dump());
    if (!job.ok()) {
      return BadAnswer("Job", job.status());
    }
    out.jobs.push_back(*std::move(job));
  }
  return out;
}

Status MlClient::CancelJob(std::string_view project, std::string_view job_id) const {
  return rest_.Call("POST", JobPath(project, job_id) + ":cancel", "{}").status();
}

Result<model::Job> MlClient::PatchJob(std::string_view project, std::string_view job_id,
                                      const model::Labels& labels,
                                      std::string_view update_mask) const {
  const nlohmann::json body = {{"labels", labels}};
  return DecodeAnswer(rest_.Call(
      "PATCH",
      fmt::format("{}?updateMask={}", JobPath(project, job_id), PercentEncode(update_mask)),
      body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

}  // namespace trainyard::cli
