// The local backend (control/backend.h): the replicas run on this machine, where the queue pass
// placed them (sched/placement.h on ExecutorOptions::inventory), each started by the launcher
// (run/launcher.h: a host process or a container) in its own process group under its supervisor.
// Their exits come back through Executor::OnExit; a restarted server takes the still running
// ones over by pid (Launcher::Adopt).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/backend.h"
#include "run/launcher.h"
#include "sched/inventory.h"

namespace trainyard::control {

struct LocalBackendOptions {
  std::string data_dir;  // jobs/ are under it (control/job_layout.h)
  sched::Inventory inventory;
};

class LocalBackend final : public Backend {
 public:
  LocalBackend(run::Launcher& launcher, const catalog::Catalog& catalog, const Clock& clock,
               LocalBackendOptions options);

  void Attach(RunHost& host) override { host_ = &host; }
  bool PlacesJobs() const override { return false; }
  bool RestartsReplicas() const override { return false; }
  void Start(JobRun& run, const model::Job& job, plan::PlanContext context) override;
  Status StartReplica(JobRun& run, std::size_t replica) override;
  void Stop(JobRun& run) override;
  void Kill(JobRun& run) override;
  void KillLeftovers(const JobRun& run) override;
  void Poll() override {}
  void Observe(JobRun& /*run*/) override {}
  void Exited(int pid, const ExitStatus& status) override;
  bool Pending(const JobRun& /*run*/) const override { return false; }
  void Record(const JobRun& /*run*/, RunRecord& /*record*/) const override {}
  bool Adopt(JobRun& run, const model::Job& job, const RunRecord& record,
             std::vector<plan::ReplicaShape> shapes) override;
  bool Submitted(const RunRecord& /*record*/) const override { return false; }
  void KillRecorded(const RunRecord& record) override;
  void KillUnrecorded(const model::Job& job, const JobLayout& layout) override;
  void Forget(const JobRun& run) override;

 private:
  // Sends `signal` to the process group of every replica of `run` that is alive.
  void SignalAlive(const JobRun& run, int signal);

  run::Launcher& launcher_;
  const catalog::Catalog& catalog_;
  const Clock& clock_;
  LocalBackendOptions options_;
  RunHost* host_ = nullptr;
  std::map<int, std::string> pid_to_run_;  // a live replica's supervisor -> JobRun::key
};

}  // namespace trainyard::control
