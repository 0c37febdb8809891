#include "validate/rule_case.h"

#include <sstream>

#include "catalog/catalog.h"
#include "support/sample_jobs.h"
#include "validate/validate.h"

namespace trainyard::validate::testing {

model::Job RuntimeJob() {
  return trainyard::testing::ValidRuntimeJob("baseline_job");
}

model::Job GpuJob() {
  model::Job job = RuntimeJob();
  model::TrainingInput& input = In(job);
  input.scale_tier = model::ScaleTier::kCustom;
  input.master_type = "n1-highcpu-16";
  Master(job).accelerator_config = model::AcceleratorConfig{4, "NVIDIA_TESLA_T4"};
  input.worker_type = "n1-highcpu-16";
  input.worker_count = 9;
  Worker(job).accelerator_config = model::AcceleratorConfig{4, "NVIDIA_TESLA_T4"};
  input.parameter_server_type = "n1-highmem-8";
  input.parameter_server_count = 3;
  return job;
}

model::Job LegacyJob() {
  model::Job job = RuntimeJob();
  model::TrainingInput& input = In(job);
  input.scale_tier = model::ScaleTier::kCustom;
  input.master_type = "complex_model_m_gpu";
  input.worker_type = "complex_model_m_gpu";
  input.worker_count = 9;
  input.parameter_server_type = "large_model";
  input.parameter_server_count = 3;
  return job;
}

model::Job TpuJob() {
  model::Job job = RuntimeJob();
  model::TrainingInput& input = In(job);
  input.scale_tier = model::ScaleTier::kCustom;
  input.runtime_version = "2.2";
  input.master_type = "n1-highcpu-16";
  input.worker_type = "cloud_tpu";
  input.worker_count = 1;
  Worker(job).accelerator_config = model::AcceleratorConfig{8, "TPU_V2"};
  return job;
}

model::Job ContainerJob() {
  model::Job job;
  job.job_id = "container_job";
  model::TrainingInput input;
  input.region = "us-central1";
  job.training_input = input;
  Master(job).image_uri = "gcr.io/my-project/trainer:latest";
  return job;
}

model::TrainingInput& In(model::Job& job) {
  if (!job.training_input) {
    job.training_input.emplace();
  }
  return *job.training_input;
}

model::ReplicaConfig& Master(model::Job& job) {
  auto& config = In(job).master_config;
  return config ? *config : config.emplace();
}

model::ReplicaConfig& Worker(model::Job& job) {
  auto& config = In(job).worker_config;
  return config ? *config : config.emplace();
}

model::ReplicaConfig& ParameterServer(model::Job& job) {
  auto& config = In(job).parameter_server_config;
  return config ? *config : config.emplace();
}

void SingleMaster(model::Job& job, std::string machine, std::string accelerator,
                  std::int64_t count) {
  model::TrainingInput& input = In(job);
  input.scale_tier = model::ScaleTier::kCustom;
  input.master_type = std::move(machine);
  input.master_config.reset();
  input.worker_type.clear();
  input.worker_count = 0;
  input.worker_config.reset();
  input.parameter_server_type.clear();
  input.parameter_server_count = 0;
  input.parameter_server_config.reset();
  if (!accelerator.empty()) {
    Master(job).accelerator_config = model::AcceleratorConfig{count, std::move(accelerator)};
  }
}

std::vector<std::string> Fields(const std::vector<FieldViolation>& violations) {
  std::vector<std::string> fields;
  fields.reserve(violations.size());
  for (const FieldViolation& v : violations) {
    fields.push_back(v.field);
  }
  return fields;
}

std::string Describe(const std::vector<FieldViolation>& violations) {
  std::ostringstream out;
  for (const FieldViolation& v : violations) {
    out << "\n  " << v.field << ": " << v.description;
  }
  return out.str();
}

void ExpectRuleCase(const RuleCase& c) {
  model::Job job = c.base();
  c.mutate(job);
  const std::vector<FieldViolation> violations = Validate(job, catalog::Catalog::Builtin());
  std::vector<std::string> expected;
  std::stringstream fields(c.fields);
  for (std::string field; std::getline(fields, field, ',');) {
    expected.push_back(field);
  }
  EXPECT_EQ(Fields(violations), expected) << "violations:" << Describe(violations);
}

}  // namespace trainyard::validate::testing
