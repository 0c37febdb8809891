#include "integration/live_server.h"

#include <gtest/gtest.h>

#include "base/check.h"
#include "catalog/catalog.h"
#include "model/json_codec.h"
#include "store/sqlite_job_store.h"
#include "support/sample_jobs.h"

namespace trainyard::testing {

LiveServer::LiveServer(server::HttpServerOptions options, bool check_tokens) {
  auto store = store::OpenSqliteJobStore(dir_.File("trainyard.db"));
  TY_CHECK(store.ok()) << store.status().ToString();
  store_ = *std::move(store);
  auto buckets = store::OpenFileBucketStore(dir_.File("buckets"), dir_.File("storage.db"), clock_);
  TY_CHECK(buckets.ok()) << buckets.status().ToString();
  buckets_ = *std::move(buckets);
  auto tokens = store::OpenTokenStore(dir_.File("tokens.db"));
  TY_CHECK(tokens.ok()) << tokens.status().ToString();
  tokens_ = *std::move(tokens);
  audit_ = std::make_unique<store::FileAuditStore>(store::AuditDir(dir_.path().string()));
  controller_ =
      std::make_unique<control::JobController>(*store_, catalog::Catalog::Builtin(), clock_);
  auto sharing_store = store::OpenSharingStore(store::SharingStorePath(dir_.path().string()));
  TY_CHECK(sharing_store.ok()) << sharing_store.status().ToString();
  sharing_store_ = *std::move(sharing_store);
  sharing_ = std::make_unique<control::SharingAdmin>(*sharing_store_, catalog::Catalog::Builtin());
  TY_CHECK(sharing_->Load().ok());
  controller_->SetSharingPolicy([this] { return sharing_->Current(); });
  options.host = "127.0.0.1";
  options.port = 0;
  server_ = std::make_unique<server::Server>(
      options, *controller_, *store_, buckets_.get(), clock_, dir_.path().string(),
      server::ReplicaLookup(), std::function<std::vector<kube::NodeView>()>(),
      server::ServerAccess{.tokens = check_tokens ? tokens_.get() : nullptr, .audit = audit_.get()},
      server::TrainyardV1Sources{.sharing = sharing_.get()});
  auto port = server_->Start();
  TY_CHECK(port.ok()) << port.status().ToString();
  port_ = *port;
}

LiveServer::~LiveServer() {
  server_->Stop();
}

nlohmann::json ValidJob(std::string_view job_id) {
  model::Job job = trainyard::testing::ValidRuntimeJob(std::string(job_id));
  job.training_input->args = {"--epochs", "3"};
  job.training_input->enable_web_access = false;  // as gcloud always sends it
  return nlohmann::json::parse(model::EncodeJob(job));
}

std::string TFJobsPath(std::string_view project) {
  return "/apis/kubeflow.org/v1/namespaces/" + std::string(project) + "/tfjobs";
}

nlohmann::json TFJobManifest(std::string_view name) {
  nlohmann::json job = nlohmann::json::parse(R"({
    "apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {},
    "spec": {"tfReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {
      "containers": [{"name": "tensorflow", "image": "trainer:1"}]}}}}}})");
  job["metadata"]["name"] = name;
  return job;
}

std::string JobsPath(std::string_view project) {
  return "/v1/projects/" + std::string(project) + "/jobs";
}

std::string JobPath(std::string_view job_id, std::string_view project) {
  return JobsPath(project) + "/" + std::string(job_id);
}

nlohmann::json Body(const ClientResponse& response) {
  auto body = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    ADD_FAILURE() << "not JSON (status " << response.status << "): " << response.body;
    return nullptr;
  }
  return body;
}

bool IsPaddedBase64(std::string_view etag) {
  if (etag.empty() || etag.size() % 4 != 0) {
    return false;
  }
  const std::size_t padding = etag.size() - etag.find_last_not_of('=') - 1;
  if (padding > 2) {
    return false;
  }
  for (char c : etag.substr(0, etag.size() - padding)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/') {
      return false;
    }
  }
  return true;
}

}  // namespace trainyard::testing
