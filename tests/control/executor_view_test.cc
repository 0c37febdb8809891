// What the executor's local replicas see of the server's files (control/job_view.h): every host
// process gets its job's view, the data directory hidden and its project's buckets, job root and
// package entry shown; a container's mounts are the same paths.
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "control/executor_fixture.h"
#include "control/job_layout.h"
#include "fakes/fake_container_runtime.h"

namespace trainyard::control {
namespace {

using ::testing::ElementsAre;

class ExecutorViewTest : public ExecutorTest {
 protected:
  ExecutorViewTest() {
    customize_ = [](ExecutorOptions& options) {
      options.project_buckets = [](std::string_view project) {
        return project == kProject ? std::vector<std::string>{"my-bucket", "second"}
                                   : std::vector<std::string>{"theirs"};
      };
      options.job_home = "/home/trainyard-job";
    };
  }

  std::string Path(const std::string& relative) const { return (dir_.path() / relative).string(); }

  // Runs its containers' images (`on_host` false) or their commands on the host.
  void UseContainers(bool on_host) {
    customize_ = [this, on_host, previous = customize_](ExecutorOptions& options) {
      previous(options);
      options.containers = &runtime_;
      options.containers_on_host = on_host;
    };
  }

  static model::Job ImageJob(std::string id) {
    return AsImageJob(ValidRuntimeJob(std::move(id)), "localhost/trainer:1");
  }

  testing::FakeContainerRuntime runtime_;
};

TEST_F(ExecutorViewTest, AHostReplicaSeesItsProjectsBucketsItsRootAndItsPackages) {
  // The cache's link, as PackageCache leaves it (FakeStager makes none).
  const JobLayout layout(dir_.path().string(), std::string(kProject), "one");
  std::filesystem::create_directories(layout.root());
  std::filesystem::create_directory_symlink(Path("packages/0123abcd"), layout.packages_dir());
  Submit(ValidRuntimeJob("one"));
  Settle();
  ASSERT_EQ(launcher_.started().size(), 1U);
  const run::ProcessSpec spec = launcher_.started()[0].spec;
  ASSERT_TRUE(spec.view.has_value());
  EXPECT_EQ(spec.view->hidden, dir_.path().string());
  EXPECT_THAT(spec.view->writable,
              ElementsAre(Path("buckets/my-bucket"), Path("buckets/second"), layout.root()));
  EXPECT_THAT(spec.view->readable, ElementsAre(Path("packages/0123abcd")));
  // And /tmp, unless the data directory is below it (a test's may be).
  EXPECT_THAT(spec.view->private_dirs,
              ::testing::IsSupersetOf({"/dev/shm", "/home/trainyard-job", "/var/tmp"}));
}

TEST_F(ExecutorViewTest, AJobDirInAnotherProjectsBucketIsShownAlone) {
  std::filesystem::create_directories(dir_.path() / "buckets" / "theirs");
  model::Job job = ValidRuntimeJob("other");
  job.training_input->job_dir = "gs://theirs/shared/out";
  Submit(job);
  Settle();
  ASSERT_EQ(launcher_.started().size(), 1U);
  const run::ProcessSpec spec = launcher_.started()[0].spec;
  ASSERT_TRUE(spec.view.has_value());
  EXPECT_THAT(spec.view->writable,
              ElementsAre(Path("buckets/my-bucket"), Path("buckets/second"),
                          Path("buckets/theirs/shared/out"),
                          JobLayout(dir_.path().string(), std::string(kProject), "other").root()));
}

TEST_F(ExecutorViewTest, AJobDirThroughALinkInTheBucketFailsTheJobAndMakesNothingOutside) {
  // A job of the project left a link where the next job's directory goes.
  std::filesystem::create_directories(dir_.path() / "outside");
  std::filesystem::create_directories(dir_.path() / "buckets" / "my-bucket");
  std::filesystem::create_directory_symlink(dir_.path() / "outside",
                                            dir_.path() / "buckets" / "my-bucket" / "out");
  model::Job job = ValidRuntimeJob("linked");
  job.training_input->job_dir = "gs://my-bucket/out/run1";
  Submit(job);
  Settle();
  EXPECT_TRUE(launcher_.started().empty());
  const model::Job failed = Get("linked");
  EXPECT_EQ(failed.state, model::JobState::kFailed);
  EXPECT_THAT(failed.error_message,
              ::testing::HasSubstr("Cannot create the job directory gs://my-bucket/out/run1: "
                                   "out is a symbolic link"));
  EXPECT_TRUE(std::filesystem::is_empty(dir_.path() / "outside"));
}

TEST_F(ExecutorViewTest, AContainerMountsItsViewAndNotTheBucketStore) {
  UseContainers(false);
  Submit(ImageJob("img"));
  Settle();
  ASSERT_EQ(launcher_.started().size(), 1U);
  const run::ProcessSpec spec = launcher_.started()[0].spec;
  EXPECT_FALSE(spec.view.has_value()) << "a container's mounts are its view";
  ASSERT_TRUE(spec.container.has_value());
  const std::string root = JobLayout(dir_.path().string(), std::string(kProject), "img").root();
  EXPECT_THAT(
      spec.container->mounts,
      ElementsAre(
          run::Mount{.source = Path("buckets/my-bucket"), .target = Path("buckets/my-bucket")},
          run::Mount{.source = Path("buckets/second"), .target = Path("buckets/second")},
          run::Mount{.source = root, .target = root},
          run::Mount{.source = Path("buckets/my-bucket"), .target = "/gcs/my-bucket"},
          run::Mount{.source = Path("buckets/second"), .target = "/gcs/second"}));
}

TEST_F(ExecutorViewTest, OnTheHostAContainerCommandGetsTheView) {
  UseContainers(true);
  model::Job job = ImageJob("host");
  job.training_input->master_config->container_command = {"/bin/true"};
  Submit(job);
  Settle();
  ASSERT_EQ(launcher_.started().size(), 1U);
  const run::ProcessSpec spec = launcher_.started()[0].spec;
  EXPECT_FALSE(spec.container.has_value());
  ASSERT_TRUE(spec.view.has_value());
  EXPECT_EQ(spec.view->hidden, dir_.path().string());
}

// Issue #31: a server killed between a job's end and the removal of its private directories
// left them (and the job's IPC namespace mounted there); the next server removes those of every
// job that no longer runs, and keeps those of the jobs it takes over.
TEST_F(ExecutorViewTest, RecoveryRemovesThePrivateDirectoriesOfJobsThatNoLongerRun) {
  customize_ = [this, previous = customize_](ExecutorOptions& options) {
    previous(options);
    options.private_root = Path("private");
  };
  Submit(ValidRuntimeJob("running"));
  Settle();
  ASSERT_EQ(launcher_.started().size(), 1U);
  for (const char* job : {"running", "ended"}) {
    std::filesystem::create_directories(
        Path("private/" + std::string(kProject) + "/" + job + "/tmp"));
  }
  std::filesystem::create_directories(Path("private/other-project/gone/dev_shm"));
  executor().Stop(/*stop_replicas=*/false);  // the server dies; a new one takes over
  executor_.reset();
  launcher_.DefaultAdoptAnswer(true);
  executor().Recover();
  EXPECT_EQ(Get("running").state, JobState::kRunning);
  EXPECT_TRUE(std::filesystem::exists(Path("private/" + std::string(kProject) + "/running/tmp")));
  EXPECT_FALSE(std::filesystem::exists(Path("private/" + std::string(kProject) + "/ended")));
  EXPECT_FALSE(std::filesystem::exists(Path("private/other-project/gone")));
}

}  // namespace
}  // namespace trainyard::control
