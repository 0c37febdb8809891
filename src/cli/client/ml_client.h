// The ml v1 `projects.jobs` methods (docs/reference/ai-platform-training.md §1.2) over a
// `RestClient`: requests built as gcloud 528 builds them, answers decoded into `model::Job` values.
// Errors are the server's (rpc_status.h) or the transport's (rest_client.h); an answer that does
// not decode is INTERNAL. Not thread-safe (as `RestClient`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cli/client/rest_client.h"
#include "cli/commands/request_body.h"
#include "model/job.h"

namespace trainyard::cli {

struct JobsPage {
  std::vector<model::Job> jobs;
  std::string next_page_token;  // empty on the last page
};

struct ListJobsQuery {
  int page_size = 100;  // gcloud always asks for 100, the server's maximum
  std::string page_token;
  std::string filter;  // sent only when not empty; trainyard's server filters (§1.6)
};

class MlClient {
 public:
  explicit MlClient(const RestClient& rest) : rest_(rest) {}

  // POST v1/projects/<project>/jobs with the body `CreateJobRequestBody` makes.
  Result<model::Job> CreateJob(std::string_view project, const model::Job& job,
                               const ExplicitFields& explicit_fields = {}) const;
  Result<model::Job> GetJob(std::string_view project, std::string_view job_id) const;
  Result<JobsPage> ListJobs(std::string_view project, const ListJobsQuery& query) const;
  Status CancelJob(std::string_view project, std::string_view job_id) const;
  // PATCH …?updateMask=<update_mask> with body {"labels": {…}}: the whole new map.
  Result<model::Job> PatchJob(std::string_view project, std::string_view job_id,
                              const model::Labels& labels, std::string_view update_mask) const;

 private:
  const RestClient& rest_;
};

}  // namespace trainyard::cli
