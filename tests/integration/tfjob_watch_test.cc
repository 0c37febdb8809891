// A TFJob watch resumed from a list through the real server's Kubernetes API: what the client
// knew at the list's resourceVersion is said again when it changes, deletions included, as
// `kubectl delete` relies on (it lists, deletes, then watches for DELETED from the list).
#include <string>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/live_server.h"

namespace trainyard::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string TFJob(std::string_view name) {
  return TFJobManifest(name).dump();
}

class TFJobWatchTest : public ::testing::Test {
 protected:
  // The list's resourceVersion, as a watch resumes from it.
  std::string ListVersion() {
    const ClientResponse listed = client_.Get(TFJobsPath());
    EXPECT_EQ(listed.status, 200) << listed.body;
    return Body(listed)["metadata"]["resourceVersion"].get<std::string>();
  }
  // The events of a watch from `version`, read until the server ends it a second later.
  std::string WatchFrom(const std::string& version, std::string_view selector = "") {
    std::string target = TFJobsPath() + "?watch=true&timeoutSeconds=1&resourceVersion=" + version;
    if (!selector.empty()) {
      target += "&fieldSelector=" + std::string(selector);
    }
    const ClientResponse watched = client_.Get(target);
    EXPECT_EQ(watched.status, 200) << watched.body;
    return watched.body;
  }

  LiveServer server_;
  HttpClient client_{server_.port()};
};

// The race `kubectl delete` lost (stop 47): the TFJob left the API between the client's list
// and its watch, so the watch never said DELETED and kubectl waited for ever.
TEST_F(TFJobWatchTest, AnObjectDeletedBetweenTheListAndTheWatchIsSaidDeleted) {
  ASSERT_EQ(client_.Post(TFJobsPath(), TFJob("gone")).status, 201);
  ASSERT_EQ(client_.Post(TFJobsPath(), TFJob("kept")).status, 201);
  const std::string version = ListVersion();
  // Queued, so the delete cancels it at once: it has left the API when the delete answers.
  ASSERT_EQ(client_.Send("DELETE", TFJobsPath() + "/gone").status, 200);
  ASSERT_EQ(client_.Get(TFJobsPath() + "/gone").status, 404);

  const std::string events = WatchFrom(version, "metadata.name%3Dgone");
  EXPECT_THAT(events, HasSubstr(R"("type":"DELETED")")) << events;
  EXPECT_THAT(events, HasSubstr(R"("name":"gone")")) << events;
  EXPECT_THAT(WatchFrom(version), Not(HasSubstr(R"("name":"kept")")));  // unchanged since
}

TEST_F(TFJobWatchTest, AnObjectCreatedAfterTheListIsAdded) {
  const std::string version = ListVersion();
  ASSERT_EQ(client_.Post(TFJobsPath(), TFJob("new")).status, 201);
  const std::string events = WatchFrom(version);
  EXPECT_THAT(events, HasSubstr(R"("type":"ADDED")")) << events;
  EXPECT_THAT(events, HasSubstr(R"("name":"new")")) << events;
}

}  // namespace
}  // namespace trainyard::testing
