// What a TFJob write answers through the real server's Kubernetes API: the object as stored, with
// the resourceVersion of the write itself (the controller's answer, not the object read back
// afterwards), or, when nothing is written (a dry run, an unchanged object), the object as it is
// with its own resourceVersion; and a delete's answer once the object has left the API.
#include <cstdint>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/live_server.h"

namespace trainyard::testing {
namespace {

using nlohmann::json;

std::int64_t VersionOf(const json& object) {
  return std::stoll(object["metadata"]["resourceVersion"].get<std::string>());
}

std::string ObjectPath(std::string_view name) {
  return TFJobsPath() + "/" + std::string(name);
}

class TFJobWritesTest : public ::testing::Test {
 protected:
  // Creates `name` (queued: this server runs no job) and answers it as a GET shows it.
  json Create(std::string_view name) {
    const ClientResponse created = client_.Post(TFJobsPath(), TFJobManifest(name).dump());
    EXPECT_EQ(created.status, 201) << created.body;
    return GetObject(name);
  }
  json GetObject(std::string_view name) {
    const ClientResponse got = client_.Get(ObjectPath(name));
    EXPECT_EQ(got.status, 200) << got.body;
    return Body(got);
  }

  LiveServer server_;
  HttpClient client_{server_.port()};
};

// One way of changing the object "obj": the request, and whether it writes.
struct WriteCase {
  std::string name;
  std::string method;
  std::string query;         // after the object's path
  std::string content_type;  // "" for a PUT's JSON
  // The request body, from the object as a GET shows it.
  json (*body)(const json& object);
  bool writes;
};

json WithNewLabel(const json& object) {
  json changed = object;
  changed["metadata"]["labels"]["v"] = "2";
  return changed;
}
json MergePatch(const json&) {
  return {{"metadata", {{"labels", {{"v", "2"}}}}}};
}
json JsonPatch(const json&) {
  return json::array({{{"op", "add"}, {"path", "/metadata/labels"}, {"value", {{"v", "2"}}}}});
}
json ApplyManifest(const json&) {
  json manifest = TFJobManifest("obj");
  manifest["metadata"]["labels"]["v"] = "2";
  return manifest;
}
json CreatedManifest(const json&) {
  return TFJobManifest("obj");
}
json AsItIs(const json& object) {
  return object;  // a GET's output sent back: its resourceVersion, uid, status and all
}
json EmptyMergePatch(const json&) {
  return json::object();
}

class TFJobWriteAnswerTest : public TFJobWritesTest,
                             public ::testing::WithParamInterface<WriteCase> {};

TEST_P(TFJobWriteAnswerTest, AnswersTheObjectAsStoredWithTheRevisionOfItsWrite) {
  const WriteCase& tc = GetParam();
  const json before = Create("obj");
  const std::int64_t newest_before = VersionOf(Create("later"));  // the store's newest revision
  ASSERT_LT(VersionOf(before), newest_before);
  Headers headers;
  if (!tc.content_type.empty()) {
    headers.emplace_back("Content-Type", tc.content_type);
  }

  const ClientResponse written =
      client_.Send(tc.method, ObjectPath("obj") + tc.query, tc.body(before).dump(), headers);

  ASSERT_EQ(written.status, 200) << written.body;
  const json answer = Body(written);
  const json after = GetObject("obj");
  EXPECT_EQ(answer, after);  // the object as stored, its resourceVersion included
  if (tc.writes) {
    EXPECT_GT(VersionOf(answer), newest_before);
    EXPECT_EQ(answer["metadata"]["labels"]["v"], "2");
  } else {
    EXPECT_EQ(VersionOf(answer), VersionOf(before));  // its own, not the store's newest
    EXPECT_EQ(after, before);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Writes, TFJobWriteAnswerTest,
    ::testing::Values(
        WriteCase{"Put", "PUT", "", "", WithNewLabel, true},
        WriteCase{"MergePatch", "PATCH", "", "application/merge-patch+json", MergePatch, true},
        WriteCase{"JsonPatch", "PATCH", "", "application/json-patch+json", JsonPatch, true},
        WriteCase{"Apply", "PATCH", "?fieldManager=test", "application/apply-patch+yaml",
                  ApplyManifest, true},
        WriteCase{"UnchangedApply", "PATCH", "?fieldManager=test", "application/apply-patch+yaml",
                  CreatedManifest, false},
        // An update that changes nothing writes nothing, as Kubernetes' does: the fields the
        // server sets (resourceVersion, uid, generation, creationTimestamp) are not the object's.
        WriteCase{"UnchangedPut", "PUT", "", "", AsItIs, false},
        WriteCase{"EmptyMergePatch", "PATCH", "", "application/merge-patch+json", EmptyMergePatch,
                  false},
        WriteCase{"DryRunPut", "PUT", "?dryRun=All", "", WithNewLabel, false},
        WriteCase{"DryRunMergePatch", "PATCH", "?dryRun=All", "application/merge-patch+json",
                  MergePatch, false}),
    [](const auto& tc) { return tc.param.name; });

// A queued TFJob's delete cancels it at once: it has left the API, and the answer is a Status
// naming it.
TEST_F(TFJobWritesTest, ADeleteOfAQueuedObjectAnswersAStatusAndTheObjectIsGone) {
  const json before = Create("obj");

  const ClientResponse deleted = client_.Send("DELETE", ObjectPath("obj"));

  ASSERT_EQ(deleted.status, 200) << deleted.body;
  const json answer = Body(deleted);
  EXPECT_EQ(answer["kind"], "Status");
  EXPECT_EQ(answer["status"], "Success");
  EXPECT_EQ(answer["details"]["name"], "obj");
  EXPECT_EQ(answer["details"]["uid"], before["metadata"]["uid"]);
  EXPECT_EQ(client_.Get(ObjectPath("obj")).status, 404);
}

TEST_F(TFJobWritesTest, ADryRunDeleteAnswersTheObjectAsItIsAndKeepsIt) {
  const json before = Create("obj");
  Create("later");

  const ClientResponse deleted = client_.Send("DELETE", ObjectPath("obj") + "?dryRun=All");

  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(Body(deleted), before);
  EXPECT_EQ(GetObject("obj"), before);
}

// The collection's delete lists each object it deleted; one that has left the API (a queued
// one, cancelled at once) is listed as it was.
TEST_F(TFJobWritesTest, ACollectionDeleteListsTheObjectsAsTheyWere) {
  const json one = Create("one");
  const json two = Create("two");

  const ClientResponse deleted = client_.Send("DELETE", TFJobsPath());

  ASSERT_EQ(deleted.status, 200) << deleted.body;
  const json answer = Body(deleted);
  EXPECT_EQ(answer["kind"], "TFJobList");
  ASSERT_EQ(answer["items"].size(), 2U) << answer.dump();
  EXPECT_EQ(answer["items"], json::array({one, two}));
  EXPECT_EQ(client_.Get(ObjectPath("one")).status, 404);
  EXPECT_EQ(client_.Get(ObjectPath("two")).status, 404);
}

}  // namespace
}  // namespace trainyard::testing
