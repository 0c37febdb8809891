#include "integration/executing_server.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/storage/json.h"
#include "base/check.h"
#include "integration/live_server.h"
#include "logs/log_record.h"
#include "support/build_paths.h"
#include "support/wait.h"

namespace trainyard::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kProject[] = "proj";
constexpr char kBucket[] = "bkt";

fs::path TrainersDir() {
  return fs::path(testing::SourceDir()) / "tests" / "integration" / "trainers";
}

bool IsTerminal(std::string_view state) {
  return state == "SUCCEEDED" || state == "FAILED" || state == "CANCELLED";
}

// Runs `argv` (no shell) in `cwd`, its output in `log`; true when it exits 0. Only this pid is
// waited for, so the daemon's launcher keeps its own children.
bool RunTool(const std::vector<std::string>& argv, const fs::path& cwd, const fs::path& log) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    ADD_FAILURE() << "cannot start " << argv[0] << ": error " << spawned;
    return false;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) {
    ADD_FAILURE() << argv[0] << " failed:\n" << ReadFile(log).value_or("");
  }
  return ok;
}

}  // namespace

app::ServeOptions ExecutingServer::DefaultOptions() {
  app::ServeOptions options;
  options.python = kPython;
  options.stop_grace = std::chrono::seconds(2);
  options.supervisor = testing::SupervisorPath();
  options.stop_jobs_on_exit = true;  // Stop() ends the test's jobs; restart_test.cc covers the rest
  return options;
}

ExecutingServer::ExecutingServer(app::ServeOptions options, std::string_view cluster_yaml)
    : options_(std::move(options)) {
  options_.listen = "127.0.0.1:0";
  options_.data_dir = dir_.File("data");
  if (!cluster_yaml.empty()) {
    options_.cluster_file = dir_.File("cluster.yaml");
    std::ofstream(options_.cluster_file) << cluster_yaml;
  }
  StartDaemon();
}

ExecutingServer::~ExecutingServer() {
  Stop();
}

void ExecutingServer::StartDaemon() {
  auto daemon = app::Daemon::Open(options_, clock_);
  TY_CHECK(daemon.ok()) << daemon.status().ToString();
  daemon_ = *std::move(daemon);
  auto port = daemon_->Start();
  TY_CHECK(port.ok()) << port.status().ToString();
  port_ = *port;
  client_ = std::make_unique<HttpClient>(port_);
}

void ExecutingServer::Stop() {
  if (daemon_) {
    daemon_->Stop();
  }
}

void ExecutingServer::Restart() {
  Stop();
  daemon_.reset();
  StartDaemon();
}

void ExecutingServer::CreateBucket(std::string_view bucket) {
  const ClientResponse created = client_->Post(std::string("/storage/v1/b?project=") + kProject,
                                               nlohmann::json{{"name", bucket}}.dump());
  EXPECT_EQ(created.status, 200) << created.body;
}

void ExecutingServer::Upload(std::string_view bucket, std::string_view name,
                             std::string_view bytes) {
  const ClientResponse uploaded =
      client_->Send("POST",
                    "/upload/storage/v1/b/" + std::string(bucket) +
                        "/o?uploadType=media&name=" + server::PercentEncode(name),
                    bytes, {{"Content-Type", "application/gzip"}});
  EXPECT_EQ(uploaded.status, 200) << uploaded.body;
}

ClientResponse ExecutingServer::SendIdempotent(std::string_view method, std::string_view target,
                                               std::string_view body) {
  ClientResponse response = client_->Send(method, target, body);
  if (response.status == 0) {  // the server closed the idle keep-alive connection: once more
    response = client_->Send(method, target, body);
  }
  return response;
}

ClientResponse ExecutingServer::GetObject(std::string_view bucket, std::string_view name) {
  return SendIdempotent(
      "GET", "/storage/v1/b/" + std::string(bucket) + "/o/" + server::PercentEncode(name));
}

fs::path ExecutingServer::GcsPath(std::string_view bucket, std::string_view path) const {
  return fs::path(options_.data_dir) / "buckets" / bucket / path;
}

nlohmann::json ExecutingServer::Submit(const nlohmann::json& job) {
  const ClientResponse created = client_->Post(JobsPath(kProject), job.dump());
  EXPECT_EQ(created.status, 200) << created.body;
  return Body(created);
}

nlohmann::json ExecutingServer::GetJob(std::string_view job_id) {
  const ClientResponse got = SendIdempotent("GET", JobPath(job_id, kProject));
  EXPECT_EQ(got.status, 200) << got.body;
  return Body(got);
}

ClientResponse ExecutingServer::Cancel(std::string_view job_id) {
  return SendIdempotent("POST", JobPath(job_id, kProject) + ":cancel", "{}");
}

nlohmann::json ExecutingServer::WaitForState(std::string_view job_id,
                                             std::initializer_list<std::string_view> states) {
  nlohmann::json job;
  auto reached = [&] {
    job = GetJob(job_id);
    const std::string state = job.value("state", "");
    if (states.size() == 0) {
      return IsTerminal(state);
    }
    // A terminal state that was not asked for will not change: stop waiting.
    return IsTerminal(state) || std::find(states.begin(), states.end(), state) != states.end();
  };
  if (!Eventually(reached)) {
    ADD_FAILURE() << "job " << job_id
                  << " did not reach the state asked for in time; last seen: " << job.dump();
  }
  return job;
}

control::JobLayout ExecutingServer::Layout(std::string_view job_id) const {
  return control::JobLayout(options_.data_dir, kProject, job_id);
}

std::vector<int> ExecutingServer::ReplicaPids(std::string_view job_id) const {
  const nlohmann::json record = nlohmann::json::parse(
      ReadFile(Layout(job_id).run_record()).value_or("{}"), nullptr, /*allow_exceptions=*/false);
  std::vector<int> pids;
  if (record.is_object()) {
    for (const nlohmann::json& replica : record.value("replicas", nlohmann::json::array())) {
      pids.push_back(replica.value("pid", 0));
    }
  }
  return pids;
}

std::string ExecutingServer::Output(std::string_view job_id, std::string_view task) const {
  const std::string records = ReadFile(Layout(job_id).log_path(task)).value_or("");
  std::string text;
  for (std::size_t start = 0, end = 0; (end = records.find('\n', start)) != std::string::npos;
       start = end + 1) {
    if (auto record = logs::ParseRecord(std::string_view(records).substr(start, end - start))) {
      text.append(record->text);
      text.push_back('\n');
    }
  }
  return text;
}

ExecutionTest::ExecutionTest(app::ServeOptions options, std::string_view cluster_yaml)
    : server_(std::move(options), cluster_yaml) {
  server_.CreateBucket(kBucket);
  const Sdist sdist = BuildTrainerSdist();
  server_.Upload(kBucket, "packages/" + sdist.file_name, sdist.bytes);
  package_uri_ = std::string("gs://") + kBucket + "/packages/" + sdist.file_name;
}

fs::path ExecutionTest::JobDir(std::string_view job_id) const {
  return server_.GcsPath(kBucket, job_id);
}

nlohmann::json RuntimeJob(std::string_view job_id, std::string_view module,
                          std::string_view package_uri) {
  return {{"jobId", job_id},
          {"trainingInput",
           {{"scaleTier", "BASIC"},
            {"region", "us-central1"},
            {"packageUris", {package_uri}},
            {"pythonModule", module},
            {"runtimeVersion", "2.11"},
            {"pythonVersion", "3.7"},
            {"jobDir", std::string("gs://") + kBucket + "/" + std::string(job_id)}}}};
}

std::vector<nlohmann::json> ListLogEntries(HttpClient& client, std::string_view job_id,
                                           std::string_view filter) {
  std::string full = "resource.labels.job_id=\"" + std::string(job_id) + "\"";
  if (!filter.empty()) {
    full += " AND " + std::string(filter);
  }
  std::vector<nlohmann::json> entries;
  std::string token;
  do {
    nlohmann::json request = {{"resourceNames", {"projects/proj"}},
                              {"orderBy", "timestamp asc"},
                              {"pageSize", 1000},
                              {"filter", full}};
    if (!token.empty()) {
      request["pageToken"] = token;
    }
    const ClientResponse listed = client.Post("/v2/entries:list?alt=json", request.dump());
    EXPECT_EQ(listed.status, 200) << listed.body;
    if (listed.status != 200) {
      break;
    }
    const nlohmann::json page = nlohmann::json::parse(listed.body);
    for (const nlohmann::json& entry : page.value("entries", nlohmann::json::array())) {
      entries.push_back(entry);
    }
    token = page.value("nextPageToken", "");
  } while (!token.empty());
  return entries;
}

Sdist BuildTrainerSdist() {
  TempDir work;
  const fs::path source = work.path() / "yard_trainer";
  fs::copy(TrainersDir() / "yard_trainer", source, fs::copy_options::recursive);
  const fs::path dist = work.path() / "dist";
  if (!RunTool({kPython, "setup.py", "-q", "sdist", "--dist-dir", dist.string()}, source,
               work.path() / "sdist.log")) {
    return {};
  }
  for (const auto& entry : fs::directory_iterator(dist)) {
    if (entry.path().string().ends_with(".tar.gz")) {
      return {entry.path().filename().string(), ReadFile(entry.path()).value_or("")};
    }
  }
  ADD_FAILURE() << "setup.py sdist wrote no .tar.gz into " << dist;
  return {};
}

std::string PackTrainerDir(std::string_view name) {
  TempDir work;
  const std::string top = std::string(name) + "-0.1";
  fs::copy(TrainersDir() / name, work.path() / top, fs::copy_options::recursive);
  const fs::path tarball = work.path() / (top + ".tar.gz");
  if (!RunTool({"tar", "czf", tarball.string(), top}, work.path(), work.path() / "tar.log")) {
    return {};
  }
  return ReadFile(tarball).value_or("");
}

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json ReadJson(const fs::path& path) {
  const std::optional<std::string> text = ReadFile(path);
  if (!text) {
    return nullptr;
  }
  nlohmann::json value = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? nlohmann::json() : value;
}

bool Eventually(const std::function<bool()>& condition, std::chrono::milliseconds deadline) {
  return WaitUntil(condition, deadline);
}

bool ProcessAlive(int pid) {
  if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH)) {
    return false;
  }
  // "pid (comm) S ...": the state follows the last ')'.
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat").value_or("");
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) {
    return false;  // gone between the two looks
  }
  const char state = stat[paren + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace trainyard::testing
