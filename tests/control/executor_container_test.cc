// The executor with container replicas (issue #16): images are pulled in PREPARING, with their
// progress in the service log, once per distinct image; a pull that fails FAILS the job with the
// runtime's message before anything starts; each replica is a container named and labelled
// after its job and task, with its view mounted (executor_view_test.cc), its placed GPUs and no
// others.
#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "control/executor_fixture.h"
#include "control/job_layout.h"
#include "fakes/fake_container_runtime.h"
#include "os/file.h"

namespace trainyard::control {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::FakeContainerRuntime;
using ::testing::HasSubstr;

class ExecutorContainerTest : public ExecutorTest {
 protected:
  ExecutorContainerTest() {
    customize_ = [this](ExecutorOptions& options) {
      options.containers = &runtime_;
      options.runtime_pythonpath = "/opt/trainyard/python";
    };
  }

  static model::Job ImageJob(std::string id, int workers) {
    return AsImageJob(Distributed(std::move(id), workers, 0), "127.0.0.1:5000/team/trainer:1");
  }

  std::string ServiceLog(const std::string& job_id) {
    return os::ReadFileText(
               JobLayout(dir_.path().string(), std::string(kProject), job_id).service_log())
        .value_or("");
  }

  FakeContainerRuntime runtime_;
};

TEST_F(ExecutorContainerTest, PullsEachImageOnceThenStartsEveryReplicaAsItsContainer) {
  model::Job job = ImageJob("img", 2);
  job.training_input->worker_config = model::ReplicaConfig{.image_uri = "localhost/worker:2"};
  Submit(job);
  Settle();
  EXPECT_THAT(runtime_.pulls(), ElementsAre("127.0.0.1:5000/team/trainer:1", "localhost/worker:2"));
  EXPECT_THAT(ServiceLog("img"), HasSubstr("Copying blob sha256:0123"));
  EXPECT_EQ(Get("img").state, JobState::kRunning);
  const std::vector<testing::FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 3U);
  const run::ProcessSpec& master = started[0].spec;
  ASSERT_TRUE(master.container.has_value());
  EXPECT_TRUE(master.argv.empty());
  EXPECT_EQ(master.container->image, "127.0.0.1:5000/team/trainer:1");
  EXPECT_EQ(master.container->name, "trainyard-p-img-master-replica-0");
  EXPECT_THAT(
      master.container->labels,
      ElementsAre(std::pair<std::string, std::string>{"trainyard.project", "p"},
                  std::pair<std::string, std::string>{"trainyard.job", "img"},
                  std::pair<std::string, std::string>{"trainyard.task", "master-replica-0"}));
  // Its view (control/job_view.h): its job directory (in a bucket this executor does not know
  // to be the project's: executor_view_test.cc has those) and its root; the job directory also
  // below /gcs. Never the whole bucket store.
  const std::string root = JobLayout(dir_.path().string(), std::string(kProject), "img").root();
  const std::string job_dir = (dir_.path() / "buckets/my-bucket/output").string();
  EXPECT_THAT(master.container->mounts,
              ElementsAre(run::Mount{.source = job_dir, .target = job_dir},
                          run::Mount{.source = root, .target = root},
                          run::Mount{.source = job_dir, .target = "/gcs/my-bucket/output"},
                          run::Mount{.source = "/opt/trainyard/python",
                                     .target = "/opt/trainyard/python",
                                     .read_only = true}));
  EXPECT_THAT(master.env, Contains(::testing::Key("TF_CONFIG")));
  const run::ProcessSpec& worker = started[1].spec;
  ASSERT_TRUE(worker.container.has_value());
  EXPECT_EQ(worker.container->image, "localhost/worker:2");
  EXPECT_EQ(worker.container->name, "trainyard-p-img-worker-replica-0");
}

TEST_F(ExecutorContainerTest, AFailedPullFailsTheJobWithItsMessageAndStartsNothing) {
  runtime_.pull_result = Status::FailedPrecondition(
      "The image 127.0.0.1:5000/team/trainer:1 could not be pulled: manifest unknown");
  Submit(ImageJob("missing", 1));
  Settle();
  const model::Job failed = Get("missing");
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_THAT(failed.error_message, HasSubstr("manifest unknown"));
  EXPECT_TRUE(launcher_.started().empty());
}

TEST_F(ExecutorContainerTest, WithoutAContainerEngineTheJobFailsSayingHowToInstallOne) {
  runtime_.pull_result = Status::FailedPrecondition(
      "This job runs container images, but this machine has no container engine: install one");
  Submit(ImageJob("noengine", 0));
  Settle();
  EXPECT_EQ(Get("noengine").state, JobState::kFailed);
  EXPECT_THAT(Get("noengine").error_message, HasSubstr("install one"));
}

TEST_F(ExecutorContainerTest, AContainerGetsItsPlacedGpus) {
  model::Job job = WithGpus(ImageJob("gpu", 0), 2);
  job.training_input->master_config->image_uri = "localhost/trainer:1";
  Submit(job);
  Settle();
  const std::vector<testing::FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 1U);
  ASSERT_TRUE(started[0].spec.container.has_value());
  EXPECT_THAT(started[0].spec.container->device_indices, ElementsAre(0, 1));
}

// `--containers host`: the command runs on the host, no image is pulled.
TEST_F(ExecutorContainerTest, OnTheHostTheContainerCommandRunsAndNothingIsPulled) {
  customize_ = [this](ExecutorOptions& options) {
    options.containers = &runtime_;
    options.containers_on_host = true;
  };
  model::Job job = ImageJob("host", 0);
  job.training_input->master_config->container_command = {"/bin/echo", "hi"};
  job.training_input->master_config->container_args = {"--flag"};
  Submit(job);
  Settle();
  EXPECT_TRUE(runtime_.pulls().empty());
  const std::vector<testing::FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 1U);
  EXPECT_FALSE(started[0].spec.container.has_value());
  EXPECT_THAT(started[0].spec.argv,
              ElementsAre("/bin/echo", "hi", "--flag", "--job-dir",
                          (dir_.path() / "buckets" / "my-bucket" / "output").string()));
}

// Nothing to pull: no staging work, the launch comes on the next pass.
TEST_F(ExecutorContainerTest, OnTheHostNothingIsStagedAndTheJobRunsOnTheNextPass) {
  customize_ = [this](ExecutorOptions& options) {
    options.containers = &runtime_;
    options.containers_on_host = true;
  };
  defer_staging_ = true;  // staging work would wait in deferred_ and start nothing
  model::Job job = ImageJob("host", 0);
  job.training_input->master_config->container_command = {"/bin/echo", "hi"};
  Submit(job);
  executor().RunOnce();
  EXPECT_EQ(Get("host").state, JobState::kPreparing);
  EXPECT_TRUE(launcher_.started().empty());
  executor().RunOnce();
  EXPECT_TRUE(deferred_.empty());
  EXPECT_EQ(Get("host").state, JobState::kRunning);
  EXPECT_EQ(launcher_.started().size(), 1U);
}

TEST_F(ExecutorContainerTest, OnTheHostAJobCancelledBeforeItsLaunchStartsNothing) {
  customize_ = [this](ExecutorOptions& options) {
    options.containers = &runtime_;
    options.containers_on_host = true;
  };
  model::Job job = ImageJob("host", 0);
  job.training_input->master_config->container_command = {"/bin/echo", "hi"};
  Submit(job);
  executor().RunOnce();
  ASSERT_EQ(Get("host").state, JobState::kPreparing);
  ASSERT_TRUE(controller_->Cancel(kProject, "host").ok());
  Settle();
  EXPECT_EQ(Get("host").state, JobState::kCancelled);
  EXPECT_TRUE(launcher_.started().empty());
}

TEST_F(ExecutorContainerTest, OnTheHostAnImageWithoutACommandFailsSayingSo) {
  customize_ = [this](ExecutorOptions& options) {
    options.containers = &runtime_;
    options.containers_on_host = true;
  };
  Submit(ImageJob("nocommand", 0));
  Settle();
  EXPECT_EQ(Get("nocommand").state, JobState::kFailed);
  EXPECT_THAT(Get("nocommand").error_message, HasSubstr("without a containerCommand"));
  EXPECT_TRUE(launcher_.started().empty());
}

TEST_F(ExecutorContainerTest, RuntimeJobsPullNothing) {
  Submit(ValidRuntimeJob("plain"));
  Settle();
  EXPECT_TRUE(runtime_.pulls().empty());
  const std::vector<testing::FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 1U);
  EXPECT_FALSE(started[0].spec.container.has_value());
}

}  // namespace
}  // namespace trainyard::control
