// The `trainyard jobs` verbs end to end: `cli::Run` against the real server on 127.0.0.1:0
// (integration/live_server.h), with its SQLite store in a temp dir.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "cli/outcome.h"
#include "integration/live_server.h"
#include "support/text.h"

namespace trainyard::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Lines;
using ::testing::StartsWith;

using testing::Outcome;

// The JOB_ID column of a `jobs list` table, header excluded.
std::vector<std::string> ListedIds(const std::string& table) {
  std::vector<std::string> ids;
  for (const std::string& line : Lines(table)) {
    ids.push_back(line.substr(0, line.find(' ')));
  }
  if (!ids.empty()) {
    EXPECT_EQ(ids.front(), "JOB_ID");
    ids.erase(ids.begin());
  }
  return ids;
}

class JobsCliTest : public ::testing::Test {
 protected:
  std::string ServerUrl() const { return fmt::format("http://127.0.0.1:{}/", server_->port()); }

  // `trainyard ARGS` with $TRAINYARD_SERVER pointing at the live server.
  Outcome Cli(const std::vector<std::string>& args) {
    return CliWith(args, {.server = ServerUrl(), .project = "proj", .region = "us-central1"});
  }
  static Outcome CliWith(const std::vector<std::string>& args, const Environment& env) {
    std::ostringstream out;
    std::ostringstream err;
    const int rc = cli::Run(args, out, err, env);
    return {rc, out.str(), err.str()};
  }

  static std::vector<std::string> Submit(const std::string& id, std::vector<std::string> extra) {
    std::vector<std::string> args = {"jobs",
                                     "submit",
                                     "training",
                                     id,
                                     "--packages",
                                     "gs://bkt1/trainer.tar.gz",
                                     "--module-name",
                                     "trainer.task",
                                     "--runtime-version",
                                     "2.11"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // Creates `count` valid jobs named job_000… straight through the API.
  void CreateJobs(int count) {
    testing::HttpClient client(server_->port());
    for (int i = 0; i < count; ++i) {
      const auto response = client.Post(testing::JobsPath("proj"),
                                        testing::ValidJob(fmt::format("job_{:03}", i)).dump());
      ASSERT_EQ(response.status, 200) << response.body;
    }
  }

  std::unique_ptr<testing::LiveServer> server_ = std::make_unique<testing::LiveServer>();
};

// trainyard's own verbs (gcloud has none): the server keeps the job QUEUED and unplaced.
TEST_F(JobsCliTest, SuspendAndResumeAJobAndDescribeSaysSo) {
  ASSERT_EQ(Cli(Submit("job_1", {})).rc, 0);
  const Outcome suspended = Cli({"jobs", "suspend", "job_1"});
  ASSERT_EQ(suspended.rc, 0) << suspended.err;
  EXPECT_EQ(suspended.out, "");
  EXPECT_EQ(suspended.err,
            "Suspended job [job_1]: it waits in the queue until `trainyard jobs resume job_1`.\n");
  EXPECT_EQ(Cli({"jobs", "suspend", "job_1"}).rc, 0);  // already: no change, no error

  const Outcome described = Cli({"jobs", "describe", "job_1"});
  ASSERT_EQ(described.rc, 0) << described.err;
  EXPECT_THAT(described.out, HasSubstr("\nstate: QUEUED\n"));
  EXPECT_EQ(described.err,
            "\nJob [job_1] is suspended: it waits in the queue until `trainyard jobs resume "
            "job_1`.\n");

  const Outcome resumed = Cli({"jobs", "resume", "job_1"});
  ASSERT_EQ(resumed.rc, 0) << resumed.err;
  EXPECT_EQ(resumed.err, "Resumed job [job_1]: it starts when there is room for it.\n");
  EXPECT_EQ(Cli({"jobs", "describe", "job_1"}).err, "");

  ASSERT_EQ(Cli({"jobs", "cancel", "job_1"}).rc, 0);
  const Outcome ended = Cli({"jobs", "suspend", "job_1"});
  EXPECT_EQ(ended.rc, 1);
  EXPECT_EQ(ended.err,
            "ERROR: (trainyard.jobs.suspend) FAILED_PRECONDITION: Job job_1 is CANCELLED: only a "
            "job that has not ended can be suspended.\n");
  const Outcome missing = Cli({"jobs", "resume", "nope"});
  EXPECT_EQ(missing.rc, 1);
  EXPECT_THAT(missing.err, StartsWith("ERROR: (trainyard.jobs.resume) NOT_FOUND: "));
}

TEST_F(JobsCliTest, SubmitDescribeUpdateAndCancelAJob) {
  const Outcome submitted = Cli(Submit("job_1", {"--labels", "team=ml", "--", "--epochs", "3"}));
  ASSERT_EQ(submitted.rc, 0) << submitted.err;
  EXPECT_EQ(submitted.out, "jobId: job_1\nstate: QUEUED\n");
  EXPECT_THAT(submitted.err, StartsWith("Job [job_1] submitted successfully.\n"
                                        "Your job is still active. You may view the status of "
                                        "your job with the command\n\n"
                                        "  $ trainyard jobs describe job_1\n"));

  const Outcome described = Cli({"jobs", "describe", "job_1"});
  ASSERT_EQ(described.rc, 0) << described.err;
  EXPECT_THAT(described.out, StartsWith("createTime: '20"));
  EXPECT_THAT(described.out, HasSubstr("\njobId: job_1\nlabels:\n  team: ml\nstate: QUEUED\n"
                                       "trainingInput:\n  args:\n  - --epochs\n  - '3'\n"));
  EXPECT_EQ(described.err, "");

  const Outcome updated =
      Cli({"jobs", "update", "job_1", "--update-labels", "stage=test", "--remove-labels", "team"});
  ASSERT_EQ(updated.rc, 0) << updated.err;
  EXPECT_EQ(updated.out, "");
  EXPECT_EQ(updated.err, "Updated ml engine job [job_1].\n");
  const Outcome unchanged = Cli({"jobs", "update", "job_1", "--update-labels", "stage=test"});
  EXPECT_EQ(unchanged.rc, 0) << unchanged.err;
  EXPECT_EQ(unchanged.err, "No update to perform.\nUpdated ml engine job [job_1].\n");

  const Outcome cancelled = Cli({"jobs", "cancel", "job_1"});
  EXPECT_EQ(cancelled.rc, 0) << cancelled.err;
  EXPECT_EQ(cancelled.out + cancelled.err, "");
  const Outcome again = Cli({"jobs", "cancel", "job_1"});
  EXPECT_EQ(again.rc, 1);
  EXPECT_EQ(again.err,
            "ERROR: (trainyard.jobs.cancel) FAILED_PRECONDITION: Cannot cancel an already "
            "completed job.\n");

  const Outcome json = Cli({"jobs", "describe", "job_1", "--format", "json"});
  ASSERT_EQ(json.rc, 0) << json.err;
  const auto job = nlohmann::json::parse(json.out);
  EXPECT_EQ(job["state"], "CANCELLED");
  EXPECT_EQ(job["labels"], (nlohmann::json{{"stage", "test"}}));
  EXPECT_EQ(job["errorMessage"], "Job was cancelled by the user.");
  EXPECT_TRUE(job.contains("endTime"));
}

TEST_F(JobsCliTest, ClearLabelsSendsAnEmptyMap) {
  ASSERT_EQ(Cli(Submit("job_1", {"--labels", "a=b,c=d"})).rc, 0);
  const Outcome cleared = Cli({"jobs", "update", "job_1", "--clear-labels"});
  ASSERT_EQ(cleared.rc, 0) << cleared.err;
  const Outcome described = Cli({"jobs", "describe", "job_1", "--format", "json"});
  EXPECT_FALSE(nlohmann::json::parse(described.out).contains("labels")) << described.out;
}

TEST_F(JobsCliTest, ListFollowsPagesPastOneHundredJobs) {
  ASSERT_NO_FATAL_FAILURE(CreateJobs(105));
  const Outcome all = Cli({"jobs", "list"});
  ASSERT_EQ(all.rc, 0) << all.err;
  EXPECT_THAT(Lines(all.out).front(), StartsWith("JOB_ID   STATUS  CREATED"));
  const std::vector<std::string> ids = ListedIds(all.out);
  ASSERT_EQ(ids.size(), 105u);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 105u);  // each once
  EXPECT_TRUE(
      std::ranges::all_of(ids, [](const std::string& id) { return id.starts_with("job_"); }));

  const Outcome limited = Cli({"jobs", "list", "--limit", "7"});
  EXPECT_EQ(ListedIds(limited.out), std::vector<std::string>(ids.begin(), ids.begin() + 7));

  // Small pages: three requests for 25 jobs, in the same order.
  const Outcome paged = Cli({"jobs", "list", "--page-size", "10", "--limit", "25"});
  EXPECT_EQ(ListedIds(paged.out), std::vector<std::string>(ids.begin(), ids.begin() + 25));

  const Outcome filtered = Cli({"jobs", "list", "--filter", "jobId:job_10*"});
  ASSERT_EQ(filtered.rc, 0) << filtered.err;
  std::vector<std::string> matched = ListedIds(filtered.out);
  std::ranges::sort(matched);
  EXPECT_THAT(matched, ElementsAre("job_100", "job_101", "job_102", "job_103", "job_104"));
}

TEST_F(JobsCliTest, ListOfAnEmptyProjectSaysSo) {
  const Outcome o = Cli({"jobs", "list", "--project", "empty"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "Listed 0 items.\n");
}

TEST_F(JobsCliTest, ServerRefusalsAreGcloudErrors) {
  const Outcome invalid =
      Cli(Submit("1bad", {"--scale-tier", "custom", "--master-machine-type", "n1-standard-8",
                          "--master-accelerator", "type=nvidia-tesla-t4,count=3"}));
  EXPECT_EQ(invalid.rc, 1);
  EXPECT_EQ(invalid.out, "");
  const std::vector<std::string> lines = Lines(invalid.err);
  ASSERT_EQ(lines.size(), 3u) << invalid.err;
  EXPECT_THAT(lines[0], StartsWith("ERROR: (trainyard.jobs.submit.training) INVALID_ARGUMENT: "
                                   "Field: jobId Error: "));
  EXPECT_THAT(lines[0], HasSubstr("(and 1 more)"));
  EXPECT_THAT(lines[1], StartsWith("  jobId: "));
  EXPECT_THAT(lines[2], StartsWith("  trainingInput.masterConfig.acceleratorConfig.count: 3 x "
                                   "NVIDIA_TESLA_T4"));

  ASSERT_EQ(Cli(Submit("job_1", {})).rc, 0);
  const Outcome duplicate = Cli(Submit("job_1", {}));
  EXPECT_EQ(duplicate.rc, 1);
  EXPECT_EQ(duplicate.err,
            "ERROR: (trainyard.jobs.submit.training) Resource in projects [proj] is the subject "
            "of a conflict: Field: job.job_id Error: A job with this id already exists.\n");

  for (const char* verb : {"describe", "cancel"}) {
    const Outcome missing = Cli({"jobs", verb, "nope"});
    EXPECT_EQ(missing.rc, 1);
    EXPECT_EQ(missing.err, fmt::format("ERROR: (trainyard.jobs.{}) NOT_FOUND: Field: name Error: "
                                       "The specified job was not found.\n",
                                       verb));
  }
  const Outcome update_missing = Cli({"jobs", "update", "nope", "--clear-labels"});
  EXPECT_EQ(update_missing.rc, 1);
  EXPECT_THAT(update_missing.err, StartsWith("ERROR: (trainyard.jobs.update) NOT_FOUND: "));

  const Outcome bad_filter = Cli({"jobs", "list", "--filter", "state:"});
  EXPECT_EQ(bad_filter.rc, 1);
  EXPECT_THAT(bad_filter.err, StartsWith("ERROR: (trainyard.jobs.list) INVALID_ARGUMENT: "));
}

TEST_F(JobsCliTest, ServerAndProjectFlagsWinOverTheEnvironment) {
  const Environment elsewhere{
      .server = "http://127.0.0.1:1/", .project = "other", .region = "us-central1"};
  const Outcome submitted =
      CliWith(Submit("job_1", {"--server", ServerUrl(), "--project", "proj"}), elsewhere);
  ASSERT_EQ(submitted.rc, 0) << submitted.err;
  for (const char* verb : {"describe", "update", "cancel"}) {
    std::vector<std::string> args = {"jobs",      verb,        "job_1", "--server",
                                     ServerUrl(), "--project", "proj"};
    if (std::string(verb) == "update") {
      args.insert(args.end(), {"--update-labels", "a=b"});
    }
    const Outcome o = CliWith(args, elsewhere);
    EXPECT_EQ(o.rc, 0) << verb << ": " << o.err;
  }
  const Outcome listed =
      CliWith({"jobs", "list", "--server", ServerUrl(), "--project", "proj"}, elsewhere);
  EXPECT_EQ(ListedIds(listed.out), std::vector<std::string>{"job_1"});
}

TEST_F(JobsCliTest, LocalPackagesAreUploadedThenSubmittedWithTheirStorageUris) {
  testing::HttpClient client(server_->port());
  ASSERT_EQ(client.Post("/storage/v1/b?project=proj", R"({"name":"bkt1"})").status, 200);
  const std::filesystem::path src = server_->dir().path() / "src";
  std::filesystem::create_directories(src / "trainer");
  std::ofstream(src / "trainer" / "__init__.py") << "";
  std::ofstream(src / "trainer" / "task.py") << "print('training')\n";
  const std::filesystem::path extra = server_->dir().path() / "extra-1.0.tar.gz";
  std::ofstream(extra, std::ios::binary) << "not really a tarball";

  const Outcome submitted =
      Cli({"jobs", "submit", "training", "job_pkg", "--package-path", (src / "trainer").string(),
           "--packages", extra.string(), "--staging-bucket", "gs://bkt1", "--module-name",
           "trainer.task", "--runtime-version", "2.11"});
  ASSERT_EQ(submitted.rc, 0) << submitted.err;
  const Outcome described = Cli({"jobs", "describe", "job_pkg", "--format", "json"});
  ASSERT_EQ(described.rc, 0) << described.err;
  const nlohmann::json uris = nlohmann::json::parse(described.out)["trainingInput"]["packageUris"];
  ASSERT_EQ(uris.size(), 2u) << uris;
  // gs://bkt1/<job id>/<sha256 of the files>/<basename>, the --packages file first (packages.h).
  const std::string prefix =
      uris[0].get<std::string>().substr(0, uris[0].get<std::string>().rfind('/') + 1);
  EXPECT_THAT(prefix, ::testing::MatchesRegex("gs://bkt1/job_pkg/[0-9a-f]{64}/"));
  EXPECT_EQ(uris[0], prefix + "extra-1.0.tar.gz");
  EXPECT_EQ(uris[1], prefix + "trainer-0.0.0.tar.gz");
  const std::string objects = "/storage/v1/b/bkt1/o/" + prefix.substr(10);
  const auto extra_bytes = client.Get(objects + "extra-1.0.tar.gz?alt=media");
  EXPECT_EQ(extra_bytes.body, "not really a tarball");
  const auto sdist = client.Get(objects + "trainer-0.0.0.tar.gz?alt=media");
  ASSERT_EQ(sdist.status, 200) << sdist.body;
  EXPECT_TRUE(sdist.body.starts_with("\x1f\x8b"));  // gzip
}

TEST_F(JobsCliTest, AMissingStagingBucketIsNamedAndNothingIsSubmitted) {
  const std::filesystem::path package = server_->dir().path() / "trainer-0.1.tar.gz";
  std::ofstream(package) << "bytes";
  const Outcome submitted = Cli({"jobs", "submit", "training", "job_1", "--packages",
                                 package.string(), "--staging-bucket", "gs://nobucket",
                                 "--module-name", "trainer.task", "--runtime-version", "2.11"});
  EXPECT_EQ(submitted.rc, 1);
  EXPECT_EQ(submitted.out, "");
  EXPECT_EQ(submitted.err,
            "ERROR: (trainyard.jobs.submit.training) Could not upload file: [nobucket] bucket "
            "does not exist. Create it with `gcloud storage buckets create gs://nobucket`, with "
            "gcloud's storage API pointed at this trainyard server (`gcloud config set "
            "api_endpoint_overrides/storage " +
                ServerUrl() + "storage/v1/`), then submit again.\n");
  EXPECT_EQ(Cli({"jobs", "describe", "job_1"}).rc, 1);  // not found
}

TEST_F(JobsCliTest, ADownServerIsUnavailableWithAHint) {
  const std::string url = ServerUrl();
  server_.reset();  // nothing listens on that port any more
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"jobs", "list"}, Submit("job_1", {}),
        std::vector<std::string>{"jobs", "describe", "job_1"}}) {
    const Outcome o = CliWith(args, {.server = url, .region = "us-central1"});
    EXPECT_EQ(o.rc, 1);
    EXPECT_EQ(o.out, "");
    EXPECT_THAT(o.err, HasSubstr(") UNAVAILABLE: Could not connect to the trainyard server at [" +
                                 url + "]: Connection refused. Is `trainyard serve` running?"));
  }
}

}  // namespace
}  // namespace trainyard::cli
