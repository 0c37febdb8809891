// Table-driven rule tests: each row starts from a valid baseline job, applies one small
// mutation and names the request fields the violations must point at.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::validate::testing {

// Valid baselines, all in us-central1 with the builtin catalog.
model::Job RuntimeJob();  // BASIC tier, packages + module, runtime 2.11
model::Job GpuJob();     // GPU seed: n1-highcpu-16 + 4 T4 master, 9 such workers, 3 n1-highmem-8 ps
model::Job LegacyJob();  // GPU seed: complex_model_m_gpu master and 9 workers, 3 large_model ps
model::Job TpuJob();     // TPU seed: n1-highcpu-16 master, cloud_tpu worker with 8 TPU_V2, 2.2
model::Job ContainerJob();  // BASIC tier, masterConfig.imageUri only

// Shorthands for mutations.
model::TrainingInput& In(model::Job& job);
model::ReplicaConfig& Master(model::Job& job);
model::ReplicaConfig& Worker(model::Job& job);
model::ReplicaConfig& ParameterServer(model::Job& job);
// Turns `job` into a CUSTOM job with one master of `machine` carrying `count` x `accelerator`
// (none when `accelerator` is empty), no other replicas.
void SingleMaster(model::Job& job, std::string machine, std::string accelerator = "",
                  std::int64_t count = 0);

struct RuleCase {
  std::string name;
  model::Job (*base)();
  std::function<void(model::Job&)> mutate;
  // The offending leaf paths, comma-separated, in the order `Validate` reports them; "" when
  // the mutated job is valid.
  std::string fields;

  friend void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.name; }
};

inline std::string CaseName(const ::testing::TestParamInfo<RuleCase>& tc) {
  return tc.param.name;
}

std::vector<std::string> Fields(const std::vector<FieldViolation>& violations);
std::string Describe(const std::vector<FieldViolation>& violations);

// Validates the mutated baseline with the builtin catalog and checks the violation fields.
void ExpectRuleCase(const RuleCase& c);

class RuleTest : public ::testing::TestWithParam<RuleCase> {};

}  // namespace trainyard::validate::testing
