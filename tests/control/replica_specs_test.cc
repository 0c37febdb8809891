// BuildReplicaSpecs (control/replica_specs.h): the one assembly of a job's replicas that the local
// executor and the node agent share. One table: a runtime job, an image job (in a container, or
// its command on the host), with the local backend's view or without one (a Slurm task), with
// real or emulated devices, a trial, and the two ways it fails (the job's plan, one replica).
#include "control/replica_specs.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "control/job_layout.h"
#include "support/sample_jobs.h"

namespace trainyard::control {
namespace {

constexpr std::string_view kDataDir = "/data";
constexpr std::string_view kBuckets = "/data/buckets";

enum class Expect { kHostProcess, kContainer, kReplicaFails, kPlanFails };

struct SpecCase {
  std::string name;
  bool image = false;     // the job runs an image (else a Python package)
  bool command = false;   // the image job sets a containerCommand
  bool on_host = false;   // PlanContext::containers_on_host
  bool view = false;      // ReplicaFiles::view set (the local backend)
  bool emulated = false;  // the master's device is emulated
  std::string trial_id;   // "" for the job's own replicas
  std::string gcs_mount;  // the job's gs:// job dir needs one
  Expect expect = Expect::kHostProcess;
};

class ReplicaSpecsTest : public ::testing::TestWithParam<SpecCase> {};

// A master (placed with device 1) and one worker.
model::Job JobOf(const SpecCase& tc) {
  model::Job job = trainyard::testing::ValidRuntimeJob("rs");
  model::TrainingInput& input = *job.training_input;
  input.scale_tier = model::ScaleTier::kCustom;
  input.master_type = "n1-standard-4";
  input.worker_type = "n1-standard-4";
  input.worker_count = 1;
  if (tc.image) {
    trainyard::testing::DropPythonPackage(input);
    input.args = {"--x"};
    input.master_config = model::ReplicaConfig{.image_uri = "localhost/trainer:1"};
    if (tc.command) {
      input.master_config->container_command = {"/bin/train"};
    }
  }
  return job;
}

TEST_P(ReplicaSpecsTest, EachReplicaIsAssembledOneWay) {
  const SpecCase& tc = GetParam();
  const catalog::Catalog& catalog = catalog::Catalog::Builtin();
  const model::Job job = JobOf(tc);
  Result<std::vector<plan::ReplicaShape>> shapes = plan::JobReplicas(job, catalog);
  ASSERT_TRUE(shapes.ok()) << shapes.status().message();
  ASSERT_EQ(shapes->size(), 2U);
  const std::vector<plan::ReplicaPlacement> placements = {
      {.host = "10.0.0.1", .port = 2222, .device_indices = {1}, .emulated = tc.emulated},
      {.host = "10.0.0.2", .port = 2223}};
  plan::PlanContext context{.job_id = "rs",
                            .trial_id = tc.trial_id,
                            .gcs_mount = tc.gcs_mount,
                            .pytorch_master_port = 2224,
                            .containers_on_host = tc.on_host};
  const run::FileView view{.writable = {"/data/jobs/p/rs"}};
  const ReplicaFiles files{.data_dir = std::string(kDataDir),
                           .project = "p",
                           .view = tc.view ? std::optional(view) : std::nullopt};

  Result<std::vector<Result<run::ProcessSpec>>> specs =
      BuildReplicaSpecs(job, *shapes, placements, context, files, catalog);

  if (tc.expect == Expect::kPlanFails) {
    ASSERT_FALSE(specs.ok());
    EXPECT_EQ(specs.status().code(), Code::kFailedPrecondition);
    return;
  }
  ASSERT_TRUE(specs.ok()) << specs.status().message();
  ASSERT_EQ(specs->size(), 2U);
  const JobLayout layout(kDataDir, "p", "rs", tc.trial_id);
  for (std::size_t i = 0; i < specs->size(); ++i) {
    const std::string& task = (*shapes)[i].task_name;
    SCOPED_TRACE(task);
    const Result<run::ProcessSpec>& spec = (*specs)[i];
    if (tc.expect == Expect::kReplicaFails) {
      ASSERT_FALSE(spec.ok());
      EXPECT_EQ(spec.status().code(), Code::kFailedPrecondition);
      EXPECT_NE(spec.status().message().find(task), std::string::npos);
      continue;
    }
    ASSERT_TRUE(spec.ok()) << spec.status().message();
    EXPECT_EQ(spec->working_dir, layout.working_dir(task));
    EXPECT_EQ(spec->log_path, layout.log_path(task));
    EXPECT_EQ(spec->exit_path, layout.exit_path(task));
    EXPECT_FALSE(spec->held);
    bool has_tf_config = false;
    for (const auto& [name, value] : spec->env) {
      has_tf_config |= name == "TF_CONFIG" && value.find("10.0.0.2:2223") != std::string::npos;
    }
    EXPECT_TRUE(has_tf_config);
    if (tc.expect == Expect::kHostProcess) {
      EXPECT_FALSE(spec->container.has_value());
      EXPECT_EQ(spec->view, files.view);
      ASSERT_FALSE(spec->argv.empty());
      if (tc.image) {
        EXPECT_EQ(spec->argv, (std::vector<std::string>{"/bin/train", "--x", "--job-dir",
                                                        "/data/buckets/my-bucket/output"}));
      }
      continue;
    }
    EXPECT_TRUE(spec->argv.empty());
    EXPECT_FALSE(spec->view.has_value());  // its mounts are its view
    ASSERT_TRUE(spec->container.has_value());
    EXPECT_EQ(spec->container->image, "localhost/trainer:1");
    EXPECT_EQ(spec->container->name, tc.trial_id.empty()
                                         ? "trainyard-p-rs-" + task
                                         : "trainyard-p-rs-trial-" + tc.trial_id + "-" + task);
    EXPECT_EQ(spec->container->device_indices,
              i == 0 && !tc.emulated ? std::vector<int>{1} : std::vector<int>{});
    bool mounts_view = false;
    bool mounts_store = false;
    for (const run::Mount& mount : spec->container->mounts) {
      mounts_view |= mount.source == "/data/jobs/p/rs";
      mounts_store |= mount.source == kBuckets && mount.target == "/gcs";
    }
    EXPECT_EQ(mounts_view, tc.view);
    EXPECT_EQ(mounts_store, !tc.view);
  }
}

INSTANTIATE_TEST_SUITE_P(Table, ReplicaSpecsTest,
                         ::testing::Values(SpecCase{.name = "RuntimeJobWithView",
                                                    .view = true,
                                                    .gcs_mount = std::string(kBuckets),
                                                    .expect = Expect::kHostProcess},
                                           SpecCase{.name = "RuntimeJobWithoutView",
                                                    .gcs_mount = std::string(kBuckets),
                                                    .expect = Expect::kHostProcess},
                                           SpecCase{.name = "RuntimeTrial",
                                                    .trial_id = "3",
                                                    .gcs_mount = std::string(kBuckets),
                                                    .expect = Expect::kHostProcess},
                                           SpecCase{.name = "ImageInAContainerWithView",
                                                    .image = true,
                                                    .view = true,
                                                    .gcs_mount = std::string(kBuckets),
                                                    .expect = Expect::kContainer},
                                           SpecCase{.name = "ImageInAContainerWithoutView",
                                                    .image = true,
                                                    .gcs_mount = std::string(kBuckets),
                                                    .expect = Expect::kContainer},
                                           SpecCase{.name = "ImageTrialWithEmulatedDevices",
                                                    .image = true,
                                                    .emulated = true,
                                                    .trial_id = "3",
                                                    .gcs_mount = std::string(kBuckets),
                                                    .expect = Expect::kContainer},
                                           SpecCase{.name = "ImageCommandOnTheHost",
                                                    .image = true,
                                                    .command = true,
                                                    .on_host = true,
                                                    .view = true,
                                                    .gcs_mount = std::string(kBuckets),
                                                    .expect = Expect::kHostProcess},
                                           SpecCase{.name = "ImageWithoutCommandOnTheHost",
                                                    .image = true,
                                                    .on_host = true,
                                                    .gcs_mount = std::string(kBuckets),
                                                    .expect = Expect::kReplicaFails},
                                           SpecCase{.name = "GcsJobDirWithoutABucketStore",
                                                    .expect = Expect::kPlanFails}),
                         [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::control
