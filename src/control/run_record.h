// What the executor started for one job, kept in `JobLayout::run_record()` so that a server
// started after this one died (or was stopped leaving replicas running) can take the replicas
// over: their supervisors' pids, the exact specs (argv, environment with the ports chosen at
// launch, log and exit paths) to adopt or restart them with, the devices they hold, and the
// restart counts and machine time so far.
//
// Written whole (to a temporary file, then renamed) after every replica start, so a reader sees
// the last complete version. A replica started but not yet recorded when the server dies is the
// one window this leaves; its supervisor then finds its trainer alone and the executor never
// learns of it (see docs/ARCHITECTURE.md, "Restarts").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "run/launcher.h"

namespace trainyard::control {

struct RunRecord {
  struct Replica {
    std::string task_name;
    int pid = 0;  // the supervisor's; 0 when not started yet
    int restarts = 0;
    double seconds = 0;               // machine time of the starts before the current one
    std::optional<WallTime> started;  // the current start
    run::ProcessSpec spec;
    std::size_t node = 0;  // the allocation: index into the inventory's nodes
    std::vector<int> device_indices;
    int cpus = 0;
    std::int64_t memory_mib = 0;
  };
  std::vector<Replica> replicas;
  // A job a cluster manager runs (agent/batch_launch.h): its id there ("" for local runs) and
  // the first of its replicas' ports.
  std::string batch_id;
  int first_port = 0;
  // The run's restarts, every replica's (a whole-cluster restart counts once): a job's backoff
  // limit is spent across a server restart too.
  int restarts = 0;
};

std::string EncodeRunRecord(const RunRecord& record);
// INVALID_ARGUMENT naming what is wrong when `json` is not a run record.
Result<RunRecord> DecodeRunRecord(std::string_view json);

// Replaces the file at `path` with `text` atomically (a new temporary file, then a rename; the
// directory is created when missing; a link at `path` is replaced, never written through:
// os/no_follow.h). INTERNAL naming the file on failure. `private_to_group`: the file is
// readable by its owner and group only (mode 0640) from its creation.
Status WriteFileAtomically(const std::string& path, const std::string& text,
                           bool private_to_group = false);

// Atomic replacement of the file at `path` (its directory is created when missing).
Status WriteRunRecord(const std::string& path, const RunRecord& record);
// NOT_FOUND when there is no file; INVALID_ARGUMENT when it is not a run record.
Result<RunRecord> ReadRunRecord(const std::string& path);

}  // namespace trainyard::control
