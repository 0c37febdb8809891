// The schemas of the discovery documents (api/discovery.h) against the codecs that really write
// and read those resources, so that a document cannot drift from its codec. For each resource
// schema a document declares, the server's own encoder writes a value with every field set, and:
//   - every member it writes is a property of the schema (through `$ref`s, arrays' `items` and
//     maps' `additionalProperties`): a client reading the document knows every field it gets;
//   - every property of the schema is a member of that value: a field the document offers is one
//     the codec knows. Where the codec's decoder walks the same field table as its encoder (ml v1:
//     model/fields.h), that is the decoder's known-fields list too, and the value decodes back.
//     Where the decoder has its own table (storage's objects.patch and bucket rules), every
//     property of the resource must be a member a patch body may carry.
#include <cctype>
#include <chrono>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "access/audit.h"
#include "api/discovery.h"
#include "api/logging/handlers.h"
#include "api/storage/json.h"
#include "api/storage/rules.h"
#include "api/trainyard/encode.h"
#include "catalog/catalog.h"
#include "logs/log_entry.h"
#include "model/full_job.h"
#include "model/json_codec.h"
#include "sched/sharing.h"
#include "sched/sharing_json.h"
#include "store/bucket_store.h"
#include "vertex/custom_job.h"
#include "vertex/spec_document.h"
#include "vertex/tuning_job.h"
#include "vertex/vertex_json.h"

namespace trainyard::server::discovery_schemas {
namespace {

using nlohmann::json;

// A schema's name: its `$ref` when it has one, else where it was reached (`path`).
std::string SchemaName(const json& schema, const std::string& path) {
  return schema.contains("$ref") ? schema["$ref"].get<std::string>() : path;
}

// Follows `schema`'s `$ref` (a name under the document's "schemas"), if it has one.
const json& Resolve(const json& document, const json& schema) {
  if (schema.contains("$ref")) {
    return document["schemas"][schema["$ref"].get<std::string>()];
  }
  return schema;
}

// What a walk of an encoded value through a document's schemas found.
struct Walk {
  std::vector<std::string> gaps;
  // Per schema (SchemaName), the object schema reached and every member the value had there.
  std::map<std::string, std::pair<json, std::set<std::string>>> seen;
};

// Walks `value` (at `path`) through `schema`: every member it has that `schema` does not describe
// is a gap; the members it has are recorded as seen for `schema`.
void CheckWritten(const json& document, const json& schema, const json& value,
                  const std::string& path, Walk& walk) {
  const json& s = Resolve(document, schema);
  if (s.value("type", "") == "any") {
    return;  // a google.protobuf.Value, or an Any's members
  }
  if (value.is_object()) {
    auto& [object_schema, members] = walk.seen[SchemaName(schema, path)];
    object_schema = s;
    for (const auto& [name, member] : value.items()) {
      const std::string at = path + "." + name;
      members.insert(name);
      if (s.contains("properties") && s["properties"].contains(name)) {
        CheckWritten(document, s["properties"][name], member, at, walk);
      } else if (s.contains("additionalProperties")) {
        CheckWritten(document, s["additionalProperties"], member, at + "{}", walk);
      } else {
        walk.gaps.push_back("written but not in the document: " + at);
      }
    }
  } else if (value.is_array()) {
    if (!s.contains("items")) {
      walk.gaps.push_back("an array the document does not declare one: " + path);
      return;
    }
    for (const json& item : value) {
      CheckWritten(document, s["items"], item, path + "[]", walk);
    }
  }
}

// Adds to `walk.gaps` every property of a schema the walk reached that no value there had: with
// a fully populated value, a field the document offers that the codec does not know.
void CheckKnown(Walk& walk) {
  for (const auto& [name, reached] : walk.seen) {
    const auto& [schema, members] = reached;
    if (!schema.contains("properties")) {
      continue;
    }
    for (const auto& [property, unused] : schema["properties"].items()) {
      if (!members.contains(property)) {
        walk.gaps.push_back("in the document but not in the codec: " + name + "." + property);
      }
    }
  }
}

struct SchemaCase {
  std::string api;
  std::string version;
  std::string schema;
  // The server's own encoding of a value with every field set.
  std::function<json()> full_value;
  // Where the codec reads the resource with a table of the fields it knows: whether it takes
  // `member` (`value` the full value's, null when it has none) in a body. Every property of the
  // schema must be taken; unset, the full value stands for what the codec knows (above).
  std::function<bool(const std::string& member, const json& value)> decoder_takes;
};

void PrintTo(const SchemaCase& c, std::ostream* out) {
  *out << c.api << " " << c.schema;
}

class DiscoverySchemasTest : public ::testing::TestWithParam<SchemaCase> {};

TEST_P(DiscoverySchemasTest, EveryFieldTheCodecWritesIsInTheSchemaAndNoOther) {
  const SchemaCase& c = GetParam();
  const Result<std::string> text = DiscoveryDocument(c.api, c.version, "http://x/");
  ASSERT_TRUE(text.ok()) << text.status().message();
  const json document = json::parse(*text);
  ASSERT_TRUE(document["schemas"].contains(c.schema)) << c.schema;
  const json schema = {{"$ref", c.schema}};
  const json value = c.full_value();
  Walk walk;
  CheckWritten(document, schema, value, c.schema, walk);
  if (c.decoder_takes) {
    for (const auto& [property, unused] : document["schemas"][c.schema]["properties"].items()) {
      if (!c.decoder_takes(property, value.value(property, json()))) {
        walk.gaps.push_back("in the document but refused by the decoder: " + property);
      }
    }
    walk.seen.erase(c.schema);
  }
  CheckKnown(walk);
  EXPECT_TRUE(walk.gaps.empty()) << ::testing::PrintToString(walk.gaps);
}

json MlJob() {
  const std::string wire = model::EncodeJob(model::FullJob());
  // The decoder walks the same field table (model/fields.h): the full value reads back.
  EXPECT_TRUE(model::DecodeJob(wire).ok());
  return json::parse(wire);
}

json StorageObject() {
  store::ObjectInfo object{.bucket = "b",
                           .name = "dir/o.txt",
                           .size = 44000,
                           .generation = 1519769380000000,
                           .metageneration = 3,
                           .content_type = "text/plain",
                           .md5_base64 = "XrY7u+Ae7tCTyyK7j1rNww==",
                           .crc32c_base64 = "yZRlqg==",
                           .updated = WallTime(std::chrono::seconds(1519769380)),
                           .metadata = {{"k", "v"}},
                           .headers = {.cache_control = "no-cache",
                                       .content_disposition = "attachment",
                                       .content_encoding = "gzip",
                                       .content_language = "en"}};
  return json::parse(ObjectJson(object, "http://x"));
}

bool ObjectPatchTakes(const std::string& member, const json& value) {
  return ParseObjectPatch(json{{member, value}}.dump()).ok();
}

json StorageBucket() {
  store::BucketInfo bucket{.name = "b",
                           .project = "p",
                           .create_time = WallTime(std::chrono::seconds(1519769380)),
                           .metageneration = 2,
                           .updated = WallTime(std::chrono::seconds(1519769390)),
                           .labels = {{"team", "vision"}},
                           .settings = {{"cors", R"([{"origin":["*"],"method":["GET"],
                                                      "responseHeader":["Content-Type"],
                                                      "maxAgeSeconds":3600}])"},
                                        {"website", R"({"mainPageSuffix":"index.html",
                                                        "notFoundPage":"404.html"})"}}};
  return json::parse(BucketJson(bucket, "http://x"));
}

bool BucketPatchTakes(const std::string& member, const json& value) {
  return ApplyBucketResource({}, json{{member, value}}.dump(), BucketWrite::kPatch).ok();
}

// entries:list's answer holding one entry of each kind: a trial's line (textPayload, labels), the
// service's own message (jsonPayload) and an activity audit entry (protoPayload).
json LoggingEntries() {
  const logs::LogSource trial{
      .project = "p", .job_id = "j", .task_name = "master-replica-0", .trial_id = "3"};
  const logs::LogSource service{
      .project = "p", .job_id = "j", .task_name = "service", .service = true};
  const logs::LogSource audit{
      .project = "p", .task_name = std::string(access::kAuditLogId), .audit = true};
  const access::AuditEvent event{
      .time = WallTime(std::chrono::seconds(1519769380)),
      .project = "p",
      .service = "ml.googleapis.com",
      .method = "google.cloud.ml.v1.JobService.CreateJob",
      .resource = "projects/p/jobs/j",
      .principal = "alice",
      .caller_ip = "127.0.0.1",
      .user_agent = "gcloud",
      .authorization = {{.resource = "projects/p", .permission = "ml.jobs.create"}},
      .code = Code::kPermissionDenied,
      .message = "denied"};
  json entries = json::array();
  for (const auto& [source, text] : std::vector<std::pair<const logs::LogSource*, std::string>>{
           {&trial, "epoch 1"},
           {&service, "Job submitted."},
           {&audit, access::EncodeAuditRecord(event)}}) {
    entries.push_back(json::parse(LogEntryJson({.timestamp = "2018-02-27T22:09:40.000000Z",
                                                .insert_id = "1",
                                                .severity = logs::Severity::kError,
                                                .text = text,
                                                .source = source})));
  }
  return {{"entries", entries}, {"nextPageToken", "t"}};
}

// A CustomJob create body with every field of the document's CustomJob that a client sends (its
// pools one of each kind, container and Python package).
constexpr std::string_view kFullCustomJobBody = R"({
  "displayName": "nightly", "labels": {"team": "vision"},
  "jobSpec": {
    "workerPoolSpecs": [
      {"machineSpec": {"machineType": "n1-standard-4", "acceleratorType": "NVIDIA_TESLA_T4",
                       "acceleratorCount": 1},
       "replicaCount": "1", "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 100},
       "containerSpec": {"imageUri": "gcr.io/p/t:1", "command": ["python"], "args": ["-m", "t"],
                         "env": [{"name": "A", "value": "1"}]}},
      {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "2",
       "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/x:1",
                             "packageUris": ["gs://b/t.tar.gz"], "pythonModule": "trainer.task",
                             "args": ["--x"], "env": [{"name": "B", "value": "2"}]}}],
    "scheduling": {"timeout": "3600s", "restartJobOnWorkerRestart": true},
    "serviceAccount": "sa@p.iam.gserviceaccount.com", "network": "projects/1/global/networks/default",
    "baseOutputDirectory": {"outputUriPrefix": "gs://b/out"}, "enableWebAccess": true}})";

// The CustomJob the server answers for that body (the jobSpec kept as vertex/prepare.cc keeps
// it), failed, so that every output field is set.
json VertexCustomJob() {
  EXPECT_TRUE(vertex::DecodeCustomJob(kFullCustomJobBody).ok());
  static constexpr std::string_view kMembers[] = {"jobSpec"};
  model::Job job;
  job.job_id = "1234";
  job.state = model::JobState::kFailed;
  job.error_message = "The replica workerpool0-0 exited with a non-zero status of 1.";
  job.create_time = WallTime(std::chrono::seconds(1519769380));
  job.start_time = WallTime(std::chrono::seconds(1519769390));
  job.end_time = WallTime(std::chrono::seconds(1519769400));
  job.labels = {{"team", "vision"}};
  job.training_output =
      model::TrainingOutput{.web_access_uris = {{"workerpool0-0", "https://example.com/0"}}};
  job.extras = model::JobExtras{};
  job.extras->vertex = model::VertexResource{
      .kind = std::string(vertex::kCustomJobKind),
      .location = "europe-west4",
      .display_name = "nightly",
      .document = vertex::SpecDocument(kFullCustomJobBody, kMembers, /*unwrap=*/true),
      .base_output_directory = "gs://b/out"};
  return json::parse(vertex::EncodeCustomJob("p", job).dump());
}

// The HyperparameterTuningJob the server answers for a full create body (its trialJobSpec the
// CustomJob's jobSpec above), failed, with two trials.
json VertexTuningJob() {
  json body = {{"displayName", "study"},
               {"labels", {{"team", "vision"}}},
               {"studySpec",
                {{"metrics", {{{"metricId", "accuracy"}, {"goal", "MAXIMIZE"}}}},
                 {"parameters",
                  {{{"parameterId", "lr"},
                    {"doubleValueSpec", {{"minValue", 0.001}, {"maxValue", 0.1}}}}}}}},
               {"maxTrialCount", 4},
               {"parallelTrialCount", 2},
               {"maxFailedTrialCount", 1},
               {"trialJobSpec", json::parse(kFullCustomJobBody)["jobSpec"]}};
  const std::string text = body.dump();
  const Result<vertex::TuningJob> decoded = vertex::DecodeTuningJob(text);
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
  static constexpr std::string_view kMembers[] = {
      "studySpec", "maxTrialCount", "parallelTrialCount", "maxFailedTrialCount", "trialJobSpec"};
  model::Job job = model::FullJob();
  job.state = model::JobState::kFailed;
  job.extras = model::JobExtras{};
  job.extras->vertex =
      model::VertexResource{.kind = std::string(vertex::kTuningJobKind),
                            .location = "europe-west4",
                            .display_name = "study",
                            .document = vertex::SpecDocument(text, kMembers, /*unwrap=*/false),
                            .base_output_directory = "gs://b/out"};
  return json::parse(vertex::EncodeTuningJob("p", job).dump());
}

// trainyard v1's sharing policy (sched/sharing_json.h), every field of a quota set.
sched::ProjectQuota FullQuota(std::string project) {
  return {.project = std::move(project),
          .accelerators = {{"NVIDIA_TESLA_T4", 4}},
          .cpus = 64,
          .memory_mib = 262144,
          .jobs = 20,
          .weight = 2};
}

json TrainyardQuota() {
  return json::parse(sched::EncodeProjectQuota(FullQuota("p")));
}

// What `trainyard quota set` sends is the same object: the quota's decoder takes each property.
bool QuotaDecoderTakes(const std::string& member, const json& value) {
  const catalog::Catalog& catalog = catalog::Catalog::Builtin();
  return sched::DecodeProjectQuota("p", json{{member, value}}.dump(), catalog).ok();
}

json TrainyardSharingPolicy() {
  const sched::SharingPolicy policy{.projects = {FullQuota("a"), FullQuota("b")},
                                    .priority_classes = {{"high", 1000}, {"low", 0}}};
  return json::parse(sched::EncodeSharingPolicy(policy));
}

// The cluster as project "p" sees it, every kind of member present: a device held by its own
// trial's replica, one by another project's job, a free one; a queued job of its own and one of
// another project's; a standing with a quota and one without.
json TrainyardCluster() {
  control::ClusterView view;
  view.inventory.nodes = {sched::Node{
      .name = "box",
      .cpus = 16,
      .memory_mib = 65536,
      .devices =
          {{.index = 0, .accelerator = "NVIDIA_TESLA_T4", .model = "Tesla T4"},
           {.index = 1, .accelerator = "NVIDIA_TESLA_T4", .model = "Tesla T4"},
           {.index = 2, .accelerator = "NVIDIA_TESLA_T4", .model = "emulated", .emulated = true}},
      .labels = {{"zone", "a"}}}};
  view.replicas["p/study"] = {control::ReplicaInfo{.task_name = "master-replica-0",
                                                   .trial_id = "3",
                                                   .state = "RUNNING",
                                                   .node = "box",
                                                   .device_indices = {0}}};
  view.replicas["q/j2"] = {control::ReplicaInfo{
      .task_name = "master-replica-0", .state = "RUNNING", .node = "box", .device_indices = {1}}};
  view.queue = {{.project = "p", .job_id = "next", .position = 1, .reason = "No free device."},
                {.project = "q", .job_id = "later", .position = 2, .reason = "No free device."}};
  view.sharing.projects = {FullQuota("p")};
  view.use["p"] = sched::Amounts{
      .devices = {{"NVIDIA_TESLA_T4", 1}}, .cpus = 4, .memory_mib = 15360, .jobs = 1};
  view.use["q"] = sched::Amounts{
      .devices = {{"NVIDIA_TESLA_T4", 1}}, .cpus = 4, .memory_mib = 15360, .jobs = 1};
  return ClusterJson(view, "p");
}

// A job's replicas: a placed trial replica that ended, and one not yet placed.
json TrainyardReplicas() {
  return ReplicasJson({control::ReplicaInfo{.task_name = "master-replica-0",
                                            .trial_id = "3",
                                            .state = "EXITED",
                                            .pid = 4242,
                                            .restarts = 1,
                                            .exit_status = "exited with status 0",
                                            .node = "box",
                                            .device_indices = {0, 1}},
                       control::ReplicaInfo{.task_name = "worker-replica-0", .state = "PENDING"}});
}

// A caller with a grant (and the permissions its role holds).
json TrainyardCaller() {
  const access::Principal alice{.name = "alice",
                                .grants = {{.role = access::Role::kEditor, .project = "p"}}};
  return CallerJson(alice, {"p", "q"});
}

// A suspended job's suspension.
json TrainyardSuspension() {
  model::Job job = model::FullJob();
  job.state = model::JobState::kQueued;
  job.extras = model::JobExtras{.suspended = true};
  return json::parse(SuspensionJson(job).dump());
}

json TrainyardPriorityClasses() {
  return PriorityClassesJson({{"high", 1000}, {"low", 0}});
}

json TrainyardPriorityClass() {
  return PriorityClassJson("high", 1000);
}

INSTANTIATE_TEST_SUITE_P(
    Schemas, DiscoverySchemasTest,
    ::testing::Values(
        SchemaCase{"ml", "v1", "GoogleCloudMlV1__Job", MlJob},
        SchemaCase{"storage", "v1", "Object", StorageObject, ObjectPatchTakes},
        SchemaCase{"storage", "v1", "Bucket", StorageBucket, BucketPatchTakes},
        SchemaCase{"logging", "v2", "ListLogEntriesResponse", LoggingEntries},
        SchemaCase{"aiplatform", "v1", "GoogleCloudAiplatformV1CustomJob", VertexCustomJob},
        SchemaCase{"aiplatform", "v1", "GoogleCloudAiplatformV1HyperparameterTuningJob",
                   VertexTuningJob},
        SchemaCase{"trainyard", "v1", "ProjectQuota", TrainyardQuota, QuotaDecoderTakes},
        SchemaCase{"trainyard", "v1", "SharingPolicy", TrainyardSharingPolicy},
        SchemaCase{"trainyard", "v1", "Cluster", TrainyardCluster},
        SchemaCase{"trainyard", "v1", "ListReplicasResponse", TrainyardReplicas},
        SchemaCase{"trainyard", "v1", "Caller", TrainyardCaller},
        SchemaCase{"trainyard", "v1", "Suspension", TrainyardSuspension},
        SchemaCase{"trainyard", "v1", "PriorityClasses", TrainyardPriorityClasses},
        SchemaCase{"trainyard", "v1", "PriorityClass", TrainyardPriorityClass}),
    [](const ::testing::TestParamInfo<SchemaCase>& param_info) {
      std::string name = param_info.param.api + "_" + param_info.param.schema;
      for (char& ch : name) {
        if (std::isalnum(static_cast<unsigned char>(ch)) == 0) {
          ch = '_';
        }
      }
      return name;
    });

}  // namespace
}  // namespace trainyard::server::discovery_schemas
