// A real `trainyard serve` in-process, for tests of job execution: `app::Daemon` (stores,
// controller, inventory, process launcher, pip stager, executor, HTTP) on 127.0.0.1:0 with its
// data dir in a fresh temp dir, /usr/bin/python3 for runtime jobs and a short stop grace.
// Replicas are real child processes running the trainers of tests/integration/trainers/.
//
// Also what those tests share: building and uploading the trainer packages, job bodies,
// submitting and polling jobs, the files of a job (control/job_layout.h) and process checks.
// Waits poll with a generous deadline (`kDeadline`); nothing asserts how long anything takes.
// Not thread-safe: one test thread drives it.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/daemon.h"
#include "app/serve.h"
#include "base/clock.h"
#include "control/job_layout.h"
#include "fakes/temp_dir.h"
#include "integration/http_client.h"

namespace trainyard::testing {

inline constexpr std::chrono::seconds kDeadline{60};
inline constexpr char kPython[] = "/usr/bin/python3";

class ExecutingServer {
 public:
  // python = /usr/bin/python3, stop_grace = 2 s; `listen` and `data_dir` are the fixture's.
  static app::ServeOptions DefaultOptions();

  // With `cluster_yaml`, the inventory is that cluster file (sched/inventory.h) instead of this
  // machine, so a test does not depend on the host's GPUs.
  explicit ExecutingServer(app::ServeOptions options = DefaultOptions(),
                           std::string_view cluster_yaml = "");
  ~ExecutingServer();
  ExecutingServer(const ExecutingServer&) = delete;
  ExecutingServer& operator=(const ExecutingServer&) = delete;

  // Daemon::Stop: the server stops serving and every replica is stopped.
  void Stop();
  // After Stop(): a new daemon on the same data dir (a new port, a new client).
  void Restart();
  // The options the next Restart() uses (the fixture's listen address and data dir stay).
  app::ServeOptions& options() { return options_; }

  int port() const { return port_; }
  HttpClient& client() { return *client_; }
  const std::filesystem::path& data_dir() const { return dir_.path(); }

  // Storage API; each adds a test failure when the server refuses.
  void CreateBucket(std::string_view bucket);
  void Upload(std::string_view bucket, std::string_view name, std::string_view bytes);
  // GET of the object's metadata.
  ClientResponse GetObject(std::string_view bucket, std::string_view name);
  // Where gs://bucket/path lies on disk (the bucket store's root).
  std::filesystem::path GcsPath(std::string_view bucket, std::string_view path) const;

  // Jobs API (project "proj").
  nlohmann::json Submit(const nlohmann::json& job);  // the created job; a failure when refused
  nlohmann::json GetJob(std::string_view job_id);
  ClientResponse Cancel(std::string_view job_id);
  // Polls the job until its state is one of `states` (or terminal, when `states` is empty);
  // returns the last job seen, with a test failure when the deadline passed first.
  nlohmann::json WaitForState(std::string_view job_id,
                              std::initializer_list<std::string_view> states = {});

  control::JobLayout Layout(std::string_view job_id) const;
  // The pids of the job's replicas' supervisors (the process group leaders) in its run record:
  // the latest start of each replica.
  std::vector<int> ReplicaPids(std::string_view job_id) const;
  // The text of every line a replica wrote to stdout or stderr, in order, one per line.
  std::string Output(std::string_view job_id, std::string_view task) const;

 private:
  void StartDaemon();
  // A request that may be sent twice, retried once when no response came: the client does not
  // notice that the server closed a keep-alive connection idle for longer than its timeout.
  ClientResponse SendIdempotent(std::string_view method, std::string_view target,
                                std::string_view body = "");

  TempDir dir_;
  app::ServeOptions options_;
  SystemClock clock_;
  std::unique_ptr<app::Daemon> daemon_;
  std::unique_ptr<HttpClient> client_;
  int port_ = 0;
};

// The gtest fixture of the execution tests: a server with bucket "bkt" holding the trainer
// package at `package_uri()`.
class ExecutionTest : public ::testing::Test {
 protected:
  explicit ExecutionTest(app::ServeOptions options = ExecutingServer::DefaultOptions(),
                         std::string_view cluster_yaml = "");

  // gs://bkt/packages/<the yard_trainer sdist>.
  const std::string& package_uri() const { return package_uri_; }
  // Where gs://bkt/<job_id> (the job dir RuntimeJob gives) lies on disk.
  std::filesystem::path JobDir(std::string_view job_id) const;

  ExecutingServer server_;
  std::string package_uri_;
};

// A BASIC-tier runtime job (2.11, Python 3.7, us-central1) running `module` from `package_uri`,
// with job dir gs://bkt/<job_id>.
nlohmann::json RuntimeJob(std::string_view job_id, std::string_view module,
                          std::string_view package_uri);

// The sdist of tests/integration/trainers/yard_trainer, built with setup.py in a temp dir.
struct Sdist {
  std::string file_name;  // "yard-trainer-0.1.tar.gz"
  std::string bytes;
};
Sdist BuildTrainerSdist();
// A gzipped tarball of tests/integration/trainers/<name> (as <name>-0.1/), without building it.
std::string PackTrainerDir(std::string_view name);

// Every log entry of job `job_id` (project "proj") that matches `filter` (one more AND term; ""
// for none), oldest first, through POST /v2/entries:list in pages of 1,000 following
// nextPageToken; a test failure when the server refuses a page.
std::vector<nlohmann::json> ListLogEntries(HttpClient& client, std::string_view job_id,
                                           std::string_view filter = "");

// The whole file, or nothing when it cannot be read.
std::optional<std::string> ReadFile(const std::filesystem::path& path);
// The JSON a trainer wrote, or null when the file is missing or not JSON.
nlohmann::json ReadJson(const std::filesystem::path& path);

// Whether `condition` holds within `deadline`: support/wait.h's WaitUntil with a default deadline.
bool Eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds deadline = kDeadline);

// Whether `pid` names a live process (a zombie is not one).
bool ProcessAlive(int pid);

}  // namespace trainyard::testing
