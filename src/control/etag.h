// Job etags: 8 bytes as padded base64 (12 characters ending in "="), as gcloud requires
// (docs/reference/ai-platform-training.md §0.1 item 2). Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace trainyard::control {

// The etag after `previous` (empty for a new job) for the job `project`/`job_id`: a hash chain,
// so every revision of a job has a new etag, the same history always gives the same etags, and
// two jobs' chains do not meet.
std::string NextEtag(std::string_view project, std::string_view job_id, std::string_view previous);

}  // namespace trainyard::control
