// The daemon as a separate process: it starts, stops cleanly on SIGTERM, and a SIGKILL in the
// middle of concurrent creates loses no job whose create was answered 200.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <signal.h>

#include "fakes/temp_dir.h"
#include "integration/live_server.h"
#include "integration/serve_process.h"

namespace trainyard::testing {
namespace {

// Every job of `project`, through the paged list.
std::vector<nlohmann::json> ListAll(HttpClient& client) {
  std::vector<nlohmann::json> jobs;
  std::string token;
  do {
    const ClientResponse response =
        client.Get(JobsPath() + "?pageSize=100" + (token.empty() ? "" : "&pageToken=" + token));
    EXPECT_EQ(response.status, 200) << response.body;
    const nlohmann::json page = Body(response);
    for (const auto& job : page.value("jobs", nlohmann::json::array())) {
      jobs.push_back(job);
    }
    token = page.value("nextPageToken", "");
  } while (!token.empty());
  return jobs;
}

TEST(Serve, PrintsItsAddressCreatesTheDataDirAndStopsCleanlyOnSigterm) {
  TempDir dir;
  const std::string data_dir = dir.File("nested/data");
  ServeProcess serve(data_dir);
  ASSERT_TRUE(serve.started()) << serve.output();
  EXPECT_NE(serve.output().find("trainyard: serving on http://127.0.0.1:" +
                                std::to_string(serve.port()) + "/ (data dir " + data_dir + ")\n"),
            std::string::npos)
      << serve.output();
  EXPECT_TRUE(std::filesystem::exists(data_dir + "/trainyard.db"));
  HttpClient client(serve.port());
  EXPECT_EQ(client.Get("/healthz").body, "ok");
  serve.Signal(SIGTERM);
  EXPECT_EQ(serve.Wait(), 0);
}

TEST(Serve, ExitsWithAnErrorWhenItCannotStart) {
  TempDir dir;
  ServeProcess serve(dir.File("data"), {"--listen", "not-an-address"});
  EXPECT_FALSE(serve.started());
  EXPECT_EQ(serve.Wait(), 1);
}

TEST(Serve, KeepsEveryAnsweredCreateAcrossASigkill) {
  TempDir dir;
  const std::string data_dir = dir.File("data");
  std::map<std::string, nlohmann::json> created;  // id -> the create response; guarded by mu
  std::mutex mu;
  std::condition_variable enough;
  constexpr std::size_t kKillAfter = 120;
  std::vector<std::string> unexpected;  // guarded by mu
  {
    std::atomic<bool> server_gone = false;
    // Declared before the server, so that leaving early kills the server first and the clients,
    // seeing it gone, stop before they are joined.
    std::vector<std::jthread> clients;
    clients.reserve(4);
    // --hold-queue: this test is about the store, so the jobs must stay as they were created.
    ServeProcess serve(data_dir, {"--hold-queue"});
    ASSERT_TRUE(serve.started()) << serve.output();
    for (int t = 0; t < 4; ++t) {
      clients.emplace_back([&, t] {
        HttpClient client(serve.port());
        for (int i = 0; !server_gone; ++i) {
          const std::string id = "t" + std::to_string(t) + "_" + std::to_string(i);
          const ClientResponse response = client.Post(JobsPath(), ValidJob(id).dump());
          std::lock_guard lock(mu);
          if (response.status == 200) {
            created[id] = nlohmann::json::parse(response.body);
            enough.notify_all();
          } else if (response.status == 0) {
            server_gone = true;  // killed: nothing answered
          } else {
            unexpected.push_back(id + ": " + response.body);
            server_gone = true;
          }
        }
      });
    }
    {
      std::unique_lock lock(mu);
      ASSERT_TRUE(enough.wait_for(lock, std::chrono::seconds(120),
                                  [&] { return created.size() >= kKillAfter || server_gone; }));
    }
    serve.Signal(SIGKILL);  // while the clients are still creating
    EXPECT_EQ(serve.Wait(), -SIGKILL);
    clients.clear();  // each sees its connection fail and stops
  }
  ASSERT_TRUE(unexpected.empty()) << unexpected.front();
  ASSERT_GE(created.size(), kKillAfter);

  ServeProcess again(data_dir, {"--hold-queue"});
  ASSERT_TRUE(again.started()) << again.output();
  HttpClient client(again.port());
  for (const auto& [id, job] : created) {
    const ClientResponse response = client.Get(JobPath(id));
    ASSERT_EQ(response.status, 200) << id << ": " << response.body;
    EXPECT_EQ(Body(response), job) << id;
  }
  const std::vector<nlohmann::json> listed = ListAll(client);
  EXPECT_GE(listed.size(), created.size());  // a create may commit and die before answering
  for (const auto& job : listed) {
    EXPECT_EQ(job["state"], "QUEUED") << job.dump();
  }
  again.Signal(SIGTERM);
  EXPECT_EQ(again.Wait(), 0);
}

}  // namespace
}  // namespace trainyard::testing
