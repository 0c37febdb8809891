// GCS's request preconditions over real HTTP (ifGenerationMatch, ifGenerationNotMatch,
// ifMetagenerationMatch, ifMetagenerationNotMatch, and a rewrite's ifSource…): each object method
// evaluates them, refusing with 412 conditionNotMet (304 for a read's *NotMatch) and changing
// nothing; and writers racing on one object through the server end with exactly one write, since
// the store evaluates the conditions with the write (issue #36).
#include <algorithm>
#include <functional>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "integration/storage_fixture.h"

namespace trainyard::testing {
namespace {

class PreconditionTest : public StorageApiTest {
 protected:
  // Uploads `data` as "obj" and returns its generation.
  std::string Put(std::string_view data) {
    const ClientResponse put = UploadMedia("obj", data);
    EXPECT_EQ(put.status, 200) << put.body;
    return Body(put)["generation"].get<std::string>();
  }

  // Checks the 412 of `response` as GCS words it.
  static void ExpectConditionNotMet(const ClientResponse& response) {
    ASSERT_EQ(response.status, 412) << response.body;
    EXPECT_EQ(GcsError(response, "conditionNotMet")["message"],
              "At least one of the pre-conditions you specified did not hold.");
  }
};

TEST_F(PreconditionTest, GenerationZeroWritesOnlyAnAbsentObject) {
  const std::string target = "/upload/storage/v1/b/bkt/o?uploadType=media&name=obj";
  const ClientResponse first = client_.Send("POST", target + "&ifGenerationMatch=0", "one");
  ASSERT_EQ(first.status, 200) << first.body;
  ExpectConditionNotMet(client_.Send("POST", target + "&ifGenerationMatch=0", "two"));
  ExpectConditionNotMet(client_.Send("POST",
                                     "/upload/storage/v1/b/bkt/o?uploadType=resumable"
                                     "&name=obj&ifGenerationMatch=0",
                                     ""));
  EXPECT_EQ(Download("obj").body, "one");
}

TEST_F(PreconditionTest, WritesMatchTheLiveGeneration) {
  const std::string generation = Put("one");
  const ClientResponse stale = client_.Send(
      "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=obj&ifGenerationMatch=1", "two");
  ExpectConditionNotMet(stale);
  const ClientResponse multipart = client_.Send(
      "POST", "/upload/storage/v1/b/bkt/o?uploadType=multipart&ifGenerationMatch=" + generation,
      "--b\n\n{\"name\":\"obj\"}\n--b\n\nthree\n--b--\n",
      {{"Content-Type", "multipart/related; boundary=b"}});
  ASSERT_EQ(multipart.status, 200) << multipart.body;
  EXPECT_EQ(Download("obj").body, "three");
  ExpectConditionNotMet(client_.Send(
      "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=obj&ifMetagenerationMatch=2", "x"));
  ExpectConditionNotMet(client_.Send(
      "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=new&ifGenerationNotMatch=0", "x"));
  EXPECT_EQ(client_.Get(ObjectPath("new")).status, 404);
}

TEST_F(PreconditionTest, ReadsFailWith412OrAreNotModified) {
  const std::string generation = Put("data");
  const std::string path = ObjectPath("obj");
  EXPECT_EQ(client_.Get(path + "?ifGenerationMatch=" + generation).status, 200);
  EXPECT_EQ(client_.Get(path + "?alt=media&ifMetagenerationMatch=1").body, "data");
  ExpectConditionNotMet(client_.Get(path + "?ifGenerationMatch=1"));
  ExpectConditionNotMet(client_.Get(path + "?alt=media&ifGenerationMatch=1"));
  EXPECT_EQ(client_.Get(path + "?ifGenerationNotMatch=" + generation).status, 304);
  EXPECT_EQ(client_.Get(path + "?alt=media&ifMetagenerationNotMatch=1").status, 304);
  const ClientResponse bad = client_.Get(path + "?ifGenerationMatch=x");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(GcsError(bad, "invalid")["errors"][0]["location"], "ifGenerationMatch");
}

TEST_F(PreconditionTest, DeletesOnlyTheMatchingGeneration) {
  const std::string generation = Put("data");
  ExpectConditionNotMet(client_.Send("DELETE", ObjectPath("obj") + "?ifGenerationMatch=1"));
  EXPECT_EQ(Download("obj").body, "data");
  EXPECT_EQ(client_.Send("DELETE", ObjectPath("obj") + "?ifGenerationMatch=" + generation).status,
            204);
  EXPECT_EQ(client_.Get(ObjectPath("obj")).status, 404);
}

TEST_F(PreconditionTest, RewritesCheckSourceAndDestination) {
  const std::string generation = Put("data");
  ASSERT_EQ(UploadMedia("dest", "old").status, 200);
  const std::string rewrite = "/storage/v1/b/bkt/o/obj/rewriteTo/b/bkt/o/dest?";
  ExpectConditionNotMet(client_.Post(rewrite + "ifGenerationMatch=0", "{}"));
  ExpectConditionNotMet(client_.Post(rewrite + "ifSourceGenerationMatch=1", "{}"));
  EXPECT_EQ(Download("dest").body, "old");
  const ClientResponse copied = client_.Post(
      rewrite + "ifSourceGenerationMatch=" + generation + "&ifSourceMetagenerationMatch=1", "{}");
  ASSERT_EQ(copied.status, 200) << copied.body;
  EXPECT_EQ(Download("dest").body, "data");
}

// The server with enough threads for requests to really race in the store.
class PreconditionRaceTest : public StorageApiTest {
 protected:
  static constexpr int kWriters = 12;

  PreconditionRaceTest() : StorageApiTest({.port = 0, .threads = kWriters}) {}

  // Sends `request(i, client)` from kWriters threads (one client each, connected beforehand)
  // released together; the statuses, by writer.
  std::vector<int> Race(const std::function<ClientResponse(int, HttpClient&)>& request) {
    std::vector<std::unique_ptr<HttpClient>> clients;
    for (int i = 0; i < kWriters; ++i) {
      clients.push_back(std::make_unique<HttpClient>(server_.port()));
      EXPECT_EQ(clients.back()->Get("/storage/v1/b/bkt").status, 200);  // connected
    }
    std::vector<int> statuses(kWriters);
    std::latch start(kWriters);
    std::vector<std::thread> threads;
    for (int i = 0; i < kWriters; ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        const auto index = static_cast<std::size_t>(i);
        statuses[index] = request(i, *clients[index]).status;
      });
    }
    for (std::thread& thread : threads) {
      thread.join();
    }
    return statuses;
  }

  // Checks that one writer succeeded (200, or 204 for a delete) and every other one got 412 (or
  // 404, with `or_gone`: a delete that finds the object deleted); the winner.
  static int OneWinner(const std::vector<int>& statuses, bool or_gone = false) {
    const auto won = [](int status) { return status == 200 || status == 204; };
    EXPECT_EQ(std::ranges::count_if(statuses, won), 1) << ::testing::PrintToString(statuses);
    EXPECT_EQ(std::ranges::count(statuses, 412) + (or_gone ? std::ranges::count(statuses, 404) : 0),
              kWriters - 1)
        << ::testing::PrintToString(statuses);
    return static_cast<int>(std::ranges::find_if(statuses, won) - statuses.begin());
  }

  static std::string Data(int writer) { return "writer " + std::to_string(writer); }
};

TEST_F(PreconditionRaceTest, CreateOnlyUploadsWriteOnce) {
  const int winner = OneWinner(Race([](int i, HttpClient& client) {
    return client.Send("POST",
                       "/upload/storage/v1/b/bkt/o?uploadType=media&name=obj&ifGenerationMatch=0",
                       Data(i), {{"Content-Type", "text/plain"}});
  }));
  EXPECT_EQ(Download("obj").body, Data(winner));
}

// Resumable sessions all start while the object is absent; their last chunks race.
TEST_F(PreconditionRaceTest, CreateOnlyResumableUploadsFinishOnce) {
  std::vector<std::string> sessions;
  for (int i = 0; i < kWriters; ++i) {
    sessions.push_back(StartSession("obj", "&ifGenerationMatch=0"));
  }
  const int winner = OneWinner(Race([&](int i, HttpClient& client) {
    const std::string data = Data(i);
    return client.Send("PUT", sessions[static_cast<std::size_t>(i)], data,
                       {{"Content-Range", "bytes 0-" + std::to_string(data.size() - 1) + "/" +
                                              std::to_string(data.size())}});
  }));
  EXPECT_EQ(Download("obj").body, Data(winner));
}

// Compose, rewrite, multipart and media uploads over one generation, and deletes of it: one of
// them replaces or removes it.
TEST_F(PreconditionRaceTest, ChangesOfOneGenerationHappenOnce) {
  ASSERT_EQ(UploadMedia("src", "source").status, 200);
  const ClientResponse put = UploadMedia("obj", "live");
  ASSERT_EQ(put.status, 200) << put.body;
  const std::string match = "ifGenerationMatch=" + Body(put)["generation"].get<std::string>();
  OneWinner(
      Race([&](int i, HttpClient& client) {
        switch (i % 5) {
          case 0:
            return client.Post("/storage/v1/b/bkt/o/obj/compose?" + match,
                               R"({"sourceObjects":[{"name":"src"}]})");
          case 1:
            return client.Post("/storage/v1/b/bkt/o/src/rewriteTo/b/bkt/o/obj?" + match, "{}");
          case 2:
            return client.Send("POST", "/upload/storage/v1/b/bkt/o?uploadType=multipart&" + match,
                               "--b\n\n{\"name\":\"obj\"}\n--b\n\nnew\n--b--\n",
                               {{"Content-Type", "multipart/related; boundary=b"}});
          case 3:
            return client.Send("POST",
                               "/upload/storage/v1/b/bkt/o?uploadType=media&name=obj&" + match,
                               "new", {{"Content-Type", "text/plain"}});
          default:
            return client.Send("DELETE", ObjectPath("obj") + "?" + match);
        }
      }),
      /*or_gone=*/true);
}

// A patch keeps the generation and raises the metageneration: of patches of one metageneration,
// one applies.
TEST_F(PreconditionRaceTest, PatchesOfOneMetagenerationHappenOnce) {
  ASSERT_EQ(UploadMedia("obj", "live").status, 200);
  const int winner = OneWinner(Race([&](int i, HttpClient& client) {
    return client.Send("PATCH", ObjectPath("obj") + "?ifMetagenerationMatch=1",
                       nlohmann::json{{"metadata", {{"writer", std::to_string(i)}}}}.dump());
  }));
  const nlohmann::json object = Body(client_.Get(ObjectPath("obj")));
  EXPECT_EQ(object["metageneration"], "2");
  EXPECT_EQ(object["metadata"]["writer"], std::to_string(winner));
}

TEST_F(PreconditionRaceTest, DeletesOfOneGenerationHappenOnce) {
  const ClientResponse put = UploadMedia("obj", "live");
  ASSERT_EQ(put.status, 200) << put.body;
  const std::string match = "ifGenerationMatch=" + Body(put)["generation"].get<std::string>();
  OneWinner(Race([&](int, HttpClient& client) {
              return client.Send("DELETE", ObjectPath("obj") + "?" + match);
            }),
            /*or_gone=*/true);
}

}  // namespace
}  // namespace trainyard::testing
