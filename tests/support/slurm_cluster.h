// The Slurm test cluster (tests/slurm/CMakeLists.txt: the CTest fixture `slurm_cluster`, which
// runs bench/peers/slurm/start.sh into ${PROJECT_BINARY_DIR}/slurm-cluster,
// testing::SlurmStateDir() in build_paths.h): whether it is there, and the SLURM_CONF that points
// Slurm's clients at it.
//
// A test that needs it checks in SetUp and skips without it, or fails when the environment has
// TRAINYARD_REQUIRE_SLURM=1 (CI):
//
//   const SlurmClusterCheck cluster = CheckSlurmCluster(SlurmStateDir());
//   if (!cluster.available()) {
//     if (cluster.required) { FAIL() << cluster.why; }
//     GTEST_SKIP() << cluster.why;
//   }
//   setenv("SLURM_CONF", cluster.slurm_conf.c_str(), 1);
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace trainyard::testing {

struct SlurmClusterCheck {
  std::string slurm_conf;  // <state dir>/etc/slurm.conf; "" when the cluster is not there
  std::string why;         // why not, for the skip or failure message
  bool required = false;   // TRAINYARD_REQUIRE_SLURM=1
  bool available() const { return !slurm_conf.empty(); }
};

// The cluster is there when its setup left `<state_dir>/etc/slurm.conf` and `<state_dir>/env.sh`
// (start.sh writes both; the setup removes env.sh when the cluster did not come up, and writes its
// reason to `<state_dir>.unavailable`).
inline SlurmClusterCheck CheckSlurmCluster(const std::string& state_dir) {
  namespace fs = std::filesystem;
  SlurmClusterCheck check;
  const char* required = std::getenv("TRAINYARD_REQUIRE_SLURM");  // NOLINT(concurrency-mt-unsafe)
  check.required = required != nullptr && std::string(required) == "1";
  const fs::path dir(state_dir);
  std::error_code error;
  if (fs::exists(dir / "etc" / "slurm.conf", error) && fs::exists(dir / "env.sh", error)) {
    check.slurm_conf = (dir / "etc" / "slurm.conf").string();
    return check;
  }
  std::ostringstream text;
  std::ifstream(state_dir + ".unavailable") >> text.rdbuf();
  std::string reason = text.str();
  reason.erase(reason.find_last_not_of(" \n") + 1);
  check.why =
      "no Slurm test cluster in " + state_dir + " (" +
      (reason.empty() ? "not started: ctest starts it, as the fixture slurm_cluster" : reason) +
      "); TRAINYARD_REQUIRE_SLURM=1 makes this a failure";
  return check;
}

}  // namespace trainyard::testing
