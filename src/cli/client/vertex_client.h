// The aiplatform v1 `customJobs` and `hyperparameterTuningJobs` methods (create, get, list,
// cancel) over a `RestClient`, as gcloud 528 calls them: `v1/projects/{p}/locations/{r}/<kind>`,
// list with `pageSize` (100 unless told) and `pageToken`, cancel as a POST of `{}` to
// `…/<id>:cancel`. The jobs stay JSON: the CLI only prints them. Errors are the server's
// (rpc_status.h) or the transport's; an answer that is not a JSON object is INTERNAL. Not
// thread-safe (as `RestClient`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/status.h"
#include "cli/client/rest_client.h"

namespace trainyard::cli {

enum class VertexKind { kCustomJob, kHpTuningJob };

// The string field `key` of a job as the server sent it; "" when absent or not a string.
std::string StringField(const nlohmann::json& job, std::string_view key);

// "customJobs" or "hyperparameterTuningJobs".
std::string_view VertexCollection(VertexKind kind);

// One job's place: projects/<project>/locations/<location>/<collection>/<id>.
struct VertexJobName {
  std::string project;
  std::string location;
  std::string id;

  std::string RelativeName(VertexKind kind) const;
  friend bool operator==(const VertexJobName&, const VertexJobName&) = default;
};

// A job given on the command line as gcloud's resource argument takes it: a full relative name
// (its project and location win over the flags), or an id with `project` and `region`, the
// latter required ("Error parsing [<resource>]" naming the ways to set it when absent).
Result<VertexJobName> ParseVertexJobName(std::string_view text, VertexKind kind,
                                         const std::string& project,
                                         const std::optional<std::string>& region);

struct VertexJobsPage {
  std::vector<nlohmann::json> jobs;
  std::string next_page_token;  // empty on the last page
};

struct VertexListQuery {
  int page_size = 100;  // what gcloud always asks for
  std::string page_token;
  std::string filter;  // sent only when not empty
};

class VertexClient {
 public:
  VertexClient(const RestClient& rest, VertexKind kind) : rest_(rest), kind_(kind) {}

  // POST …/<kind> with `body` (JSON text); the job as created.
  Result<nlohmann::json> Create(std::string_view project, std::string_view location,
                                std::string_view body) const;
  Result<nlohmann::json> Get(const VertexJobName& name) const;
  Result<VertexJobsPage> List(std::string_view project, std::string_view location,
                              const VertexListQuery& query) const;
  Status Cancel(const VertexJobName& name) const;

 private:
  std::string CollectionPath(std::string_view project, std::string_view location) const;
  std::string JobPath(const VertexJobName& name) const;

  const RestClient& rest_;
  VertexKind kind_;
};

}  // namespace trainyard::cli
