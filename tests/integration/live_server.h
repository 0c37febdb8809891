// The real server in-process, for integration tests: a SQLite store and a bucket store (under
// `buckets/`) in a fresh temp dir, the controller with the builtin catalog and the system clock,
// and `server::Server` on 127.0.0.1:0, recording its activity audit log under `audit/` as the
// daemon does.
// Also the request bodies and response checks the tests share.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/server.h"
#include "base/clock.h"
#include "control/job_controller.h"
#include "control/sharing_admin.h"
#include "fakes/temp_dir.h"
#include "integration/http_client.h"
#include "sched/sharing.h"
#include "store/audit_store.h"
#include "store/bucket_store.h"
#include "store/job_store.h"
#include "store/sharing_store.h"
#include "store/token_store.h"

namespace trainyard::testing {

class LiveServer {
 public:
  // With `check_tokens`, the server checks bearer tokens of `tokens()` (issue #17).
  explicit LiveServer(server::HttpServerOptions options = {}, bool check_tokens = false);
  ~LiveServer();

  int port() const { return port_; }
  const TempDir& dir() const { return dir_; }
  store::TokenStore& tokens() { return *tokens_; }
  // The sharing policy the server serves and reads (issue #34), for a test to set as an admin.
  control::SharingAdmin& sharing() { return *sharing_; }

 private:
  TempDir dir_;
  SystemClock clock_;
  std::unique_ptr<store::JobStore> store_;
  std::unique_ptr<store::BucketStore> buckets_;
  std::unique_ptr<store::TokenStore> tokens_;
  std::unique_ptr<store::AuditStore> audit_;
  std::unique_ptr<control::JobController> controller_;
  std::unique_ptr<store::SharingStore> sharing_store_;
  std::unique_ptr<control::SharingAdmin> sharing_;  // the quotas' admin routes (issue #34)
  std::unique_ptr<server::Server> server_;
  int port_ = 0;
};

// A job body that passes validation (BASIC tier, a package, runtime 2.11), as gcloud sends one.
nlohmann::json ValidJob(std::string_view job_id);

// "/v1/projects/<project>/jobs" and "…/jobs/<id>".
std::string JobsPath(std::string_view project = "proj");
std::string JobPath(std::string_view job_id, std::string_view project = "proj");
// The Kubernetes API's TFJob collection in `project`'s namespace.
std::string TFJobsPath(std::string_view project = "proj");
// A TFJob `name` the Kubernetes API accepts: one Worker, image trainer:1.
nlohmann::json TFJobManifest(std::string_view name);

// The parsed body of `response`, or null (with a test failure) when it is not JSON.
nlohmann::json Body(const ClientResponse& response);

// True when `etag` is non-empty, padded base64 (what gcloud decodes).
bool IsPaddedBase64(std::string_view etag);

}  // namespace trainyard::testing
