// The Slurm backend (run/cluster_backend.h) on Slurm's own command-line tools, as found on PATH
// (SLURM_CONF in the server's environment picks the cluster, as for every Slurm client):
//   - Submit: `sbatch --parsable` with the script of run/slurm/batch_script.h on its stdin; the
//     first field of its answer ("123" or "123;cluster") is the id. A refusal ("sbatch: error:
//     Batch job submission failed: Requested node configuration is not available") is
//     FAILED_PRECONDITION with Slurm's message.
//   - Query: one `squeue --json` for every id (22.05 ignores squeue's filters,
//     docs/reference/slurm.md §5.2);
//     ids squeue no longer shows are asked of `sacct -P -n -o JobID,State,ExitCode,Reason -j
//     a,b,…` (`sacct -c …` with finished_jobs: jobcomp; not asked with none), then kUnknown.
//   - Cancel: `scancel <id>` (all of a het job's components).
// Every command runs without a shell, with a time limit (a hung slurmctld does not hang the
// executor): INTERNAL naming the command and its stderr when it fails or times out.
// Thread-safe (no state beyond the configuration).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "run/cluster_backend.h"
#include "run/slurm/slurm_config.h"

namespace trainyard::run::slurm {

class SlurmBackend final : public ClusterBackend {
 public:
  explicit SlurmBackend(SlurmConfig config,
                        std::chrono::milliseconds command_timeout = std::chrono::seconds(30));

  std::string Name() const override { return "Slurm"; }
  Result<std::string> Submit(const ClusterJobRequest& request) override;
  Status Cancel(const std::string& id) override;
  Result<std::map<std::string, ClusterJobState>> Query(
      const std::vector<std::string>& ids) override;

  const SlurmConfig& config() const { return config_; }

 private:
  SlurmConfig config_;
  std::chrono::milliseconds command_timeout_;
};

}  // namespace trainyard::run::slurm
