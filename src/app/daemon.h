// The composition root of `trainyard serve`: the job store, the bucket store, the controller,
// the local inventory, the process launcher and pip stager, the executor and the HTTP server,
// built from `ServeOptions` and started and stopped together. `Serve` runs one until a signal;
// integration tests run one in-process.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "app/serve.h"
#include "base/clock.h"
#include "base/status.h"
#include "sched/inventory.h"

namespace trainyard::app {

class Daemon {
 public:
  // Opens the stores under `options.data_dir` (created when missing) and builds the inventory.
  // INVALID_ARGUMENT for bad options (the listen address, the cluster file), UNAVAILABLE when a
  // store cannot be opened or the machine cannot be inspected.
  static Result<std::unique_ptr<Daemon>> Open(const ServeOptions& options, const Clock& clock);
  ~Daemon();  // Stop()s
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Serves HTTP and starts the executor (which first recovers what a previous server left).
  // Returns the bound port.
  Result<int> Start();
  // Stops serving, then the executor; running replicas are left to the next server (Recover)
  // unless `options.stop_jobs_on_exit`. Idempotent.
  void Stop();

  const sched::Inventory& inventory() const;
  // How many tokens the token store holds (0 when tokens are off or it cannot be read).
  std::size_t token_count() const;

 private:
  struct Impl;
  explicit Daemon(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainyard::app
