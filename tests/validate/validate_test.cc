#include "validate/validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::AcceleratorConfig;
using model::Job;
using ::testing::ElementsAre;

const catalog::Catalog& Builtin() {
  return catalog::Catalog::Builtin();
}

TEST(Validate, AcceptsEveryBaseline) {
  for (Job (*make)() : {RuntimeJob, GpuJob, LegacyJob, TpuJob, ContainerJob}) {
    const std::vector<FieldViolation> violations = Validate(make(), Builtin());
    EXPECT_TRUE(violations.empty()) << Describe(violations);
  }
}

TEST(Validate, RequiresTrainingInput) {
  Job job;
  job.job_id = "no_input";
  EXPECT_THAT(Fields(Validate(job, Builtin())), ElementsAre("trainingInput"));
}

TEST(Validate, ReportsEveryViolationInRequestFieldOrder) {
  Job job = GpuJob();
  job.job_id = "9lives";
  job.labels = {{"Team", "ml"}};
  In(job).region = "mars-east1";
  In(job).python_version = "2.7";
  In(job).parameter_server_count = -1;
  Worker(job).accelerator_config = AcceleratorConfig{3, "NVIDIA_TESLA_T4"};
  Master(job).disk_config = model::DiskConfig{"floppy", 1};
  EXPECT_THAT(Fields(Validate(job, Builtin())),
              ElementsAre("jobId", "labels", "trainingInput.masterConfig.diskConfig.bootDiskType",
                          "trainingInput.workerConfig.acceleratorConfig.count",
                          "trainingInput.parameterServerCount", "trainingInput.region",
                          "trainingInput.pythonVersion"));
}

TEST(ValidateJob, IsOkForAValidJob) {
  EXPECT_TRUE(ValidateJob(GpuJob(), Builtin()).ok());
}

TEST(ValidateJob, WrapsViolationsInInvalidArgument) {
  Job job = RuntimeJob();
  job.job_id = "my-job";
  In(job).region.clear();
  const Status status = ValidateJob(job, Builtin());
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  ASSERT_EQ(status.violations().size(), 2u);
  EXPECT_EQ(status.violations()[0].field, "jobId");
  EXPECT_EQ(status.violations()[1].field, "trainingInput.region");
  EXPECT_NE(status.message().find("jobId"), std::string::npos) << status.message();
}

// A catalog unlike the builtin one: the rules read names, counts and zones from it only.
const catalog::Catalog& LabCatalog() {
  static const catalog::Catalog kCatalog = [] {
    Result<catalog::Catalog> loaded = catalog::Catalog::Load({
        {"machine_types.json", R"({"machine_types": [
           {"name": "cpu-box", "family": "compute_engine", "vcpus": 8, "memory_gb": 32,
            "description": "CPU only."},
           {"name": "gpu-box", "family": "compute_engine", "vcpus": 16, "memory_gb": 64,
            "description": "Takes GPUs."},
           {"name": "tpu-host", "family": "tpu_host", "vcpus": 0, "memory_gb": 0,
            "builtin_accelerator": "TPU_X", "builtin_accelerator_count": 4,
            "description": "A TPU host."}]})"},
        {"accelerators.json", R"({"accelerators": [
           {"name": "GPU_A", "flag_name": "gpu-a", "kind": "gpu", "display_name": "A",
            "device_memory_gb": 8, "allowed_counts": [1, 2], "max_vcpus_per_unit": 8,
            "max_memory_gb_per_unit": 32},
           {"name": "GPU_B", "flag_name": "gpu-b", "kind": "gpu", "display_name": "B",
            "device_memory_gb": 8, "allowed_counts": [1], "max_vcpus_per_unit": 16,
            "max_memory_gb_per_unit": 64},
           {"name": "TPU_X", "flag_name": "tpu-x", "kind": "tpu", "display_name": "X",
            "device_memory_gb": 8, "allowed_counts": [4], "max_vcpus_per_unit": 0,
            "max_memory_gb_per_unit": 0}]})"},
        {"accelerator_counts.json", R"({"columns": ["GPU_A", "GPU_B"], "rows": [
           {"machine_type": "gpu-box", "counts": {"GPU_A": [2], "GPU_B": [1]}}]})"},
        {"regions.json", R"({"regions": [{"name": "lab-1", "zones": [
           {"name": "lab-1-a", "accelerators": ["GPU_A"]},
           {"name": "lab-1-b", "accelerators": ["GPU_B", "TPU_X"]}]}]})"},
        {"scale_tiers.json", R"({"scale_tiers": [
           {"name": "CUSTOM", "flag_name": "custom", "description": "Any cluster."}]})"},
        {"runtime_versions.json", R"({"runtime_versions": [
           {"version": "9.0", "python_versions": ["3.11"], "tpu": true,
            "chief_in_tf_config": true}]})"},
    });
    TY_CHECK(loaded.ok()) << loaded.status().ToString();
    return *std::move(loaded);
  }();
  return kCatalog;
}

Job LabJob() {
  Job job;
  job.job_id = "lab_job";
  model::TrainingInput& input = In(job);
  input.scale_tier = model::ScaleTier::kCustom;
  input.region = "lab-1";
  input.package_uris = {"/srv/lab/trainer.tar.gz"};
  input.python_module = "trainer.task";
  input.runtime_version = "9.0";
  input.master_type = "gpu-box";
  Master(job).accelerator_config = AcceleratorConfig{2, "GPU_A"};
  return job;
}

TEST(ValidateWithOtherCatalog, AcceptsWhatThatCatalogOffers) {
  const std::vector<FieldViolation> violations = Validate(LabJob(), LabCatalog());
  EXPECT_TRUE(violations.empty()) << Describe(violations);
}

TEST(ValidateWithOtherCatalog, RefusesTiersItDoesNotDefine) {
  Job job = LabJob();
  SingleMaster(job, "");
  In(job).scale_tier = model::ScaleTier::kBasic;
  const std::vector<FieldViolation> violations = Validate(job, LabCatalog());
  EXPECT_THAT(Fields(violations), ElementsAre("trainingInput.scaleTier"));
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].description, "scale tier BASIC is not offered here; tiers: CUSTOM");
}

TEST(ValidateWithOtherCatalog, ExplainsCountsFromItsNumbers) {
  Job job = LabJob();
  Master(job).accelerator_config->count = 1;
  const std::vector<FieldViolation> violations = Validate(job, LabCatalog());
  ASSERT_EQ(violations.size(), 1u) << Describe(violations);
  EXPECT_EQ(violations[0].field, "trainingInput.masterConfig.acceleratorConfig.count");
  EXPECT_EQ(violations[0].description,
            "gpu-box needs at least 2 GPU_A (each supplies up to 8 vCPUs and 32 GB); allowed "
            "counts: 2");
}

TEST(ValidateWithOtherCatalog, UsesItsZones) {
  Job job = LabJob();
  In(job).worker_type = "gpu-box";
  In(job).worker_count = 1;
  Worker(job).accelerator_config = AcceleratorConfig{1, "GPU_B"};
  const std::vector<FieldViolation> violations = Validate(job, LabCatalog());
  ASSERT_EQ(violations.size(), 1u) << Describe(violations);
  EXPECT_EQ(violations[0].description,
            "no zone of lab-1 offers GPU_A and GPU_B together; zones: lab-1-a (GPU_A), "
            "lab-1-b (GPU_B)");
}

TEST(ValidateWithOtherCatalog, UsesItsTpuHostsAndCounts) {
  Job job = LabJob();
  In(job).worker_type = "tpu-host";
  In(job).worker_count = 1;
  Worker(job).accelerator_config = AcceleratorConfig{4, "TPU_X"};
  EXPECT_TRUE(Validate(job, LabCatalog()).empty()) << Describe(Validate(job, LabCatalog()));
  Worker(job).accelerator_config->count = 8;
  EXPECT_THAT(Fields(Validate(job, LabCatalog())),
              ElementsAre("trainingInput.workerConfig.acceleratorConfig.count"));
}

}  // namespace
}  // namespace trainyard::validate::testing
