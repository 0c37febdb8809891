// `trainyard serve`: the daemon. Opens the job store and the bucket store (`buckets/`, metadata
// in `storage.db`) under the data directory, builds the controller, and serves the HTTP API until
// SIGINT or SIGTERM.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::app {

struct ServeOptions {
  std::string listen = "127.0.0.1:8470";  // "HOST:PORT" or "[IPV6]:PORT"; port 0 picks one
  std::string data_dir;  // created when missing; holds trainyard.db, storage.db and buckets/
  int threads = 2;
  // Open HTTP connections, in all and from one client address; at either limit a newcomer takes
  // the place of an idle connection that never authenticated, else it is answered 503.
  std::size_t max_connections = 512;
  std::size_t max_connections_per_address = 64;
  std::size_t max_body_bytes = std::size_t{10} << 20;
  // The largest storage upload request (a whole object, or one resumable chunk); such bodies go
  // to disk as they arrive, never into memory.
  std::uint64_t max_upload_bytes = std::uint64_t{5} << 30;
  // Bytes of request bodies all connections hold at once: in memory, and spooled to disk
  // (uploads); a request they cannot hold now is answered 503 (server/http_server.h).
  std::uint64_t body_memory_budget = std::uint64_t{256} << 20;
  std::uint64_t body_disk_budget = std::uint64_t{8} << 30;
  // The installed-package cache (<data>/packages, run/local/package_cache.h) evicts least
  // recently used entries beyond this; 0: never.
  std::uint64_t package_cache_bytes = std::uint64_t{5} << 30;

  // Execution (issue #4). The inventory is this machine as detected (nvidia-smi, /proc), or
  // the nodes of `cluster_file` (sched/inventory.h) when given.
  std::string cluster_file;
  // > 0: every catalog accelerator counts this many emulated devices on the local node, so
  // GPU/TPU jobs run on a machine without them (replicas see CUDA_VISIBLE_DEVICES="").
  int accelerator_emulation = 0;
  bool strict_resources = false;  // count machine types' vCPUs/memory against the node
  std::string python;             // interpreter for runtime jobs; "" = /usr/bin/python3 or PATH
  std::vector<std::pair<std::string, std::string>> python_versions;  // pythonVersion -> path
  int max_restarts = 3;                          // per replica killed by a signal
  std::chrono::milliseconds stop_grace{10'000};  // SIGTERM to SIGKILL
  bool hold_queue = false;  // accept and keep jobs QUEUED, start none (maintenance)
  // On SIGINT/SIGTERM, stop every job's replicas (their jobs FAIL) instead of leaving them
  // running for the next server to take over.
  bool stop_jobs_on_exit = false;
  // The replica supervisor executable; "" = `trainyard-replica` next to this executable.
  std::string supervisor;
  // trainyard's Python modules for replicas (`hypertune`), put on their PYTHONPATH; "" =
  // `python/` next to the supervisor, when it exists.
  std::string runtime_python_dir;

  // Issue #9: "local" (this machine: sched/ placement, ProcessLauncher) or "slurm" (each job
  // becomes a heterogeneous Slurm job, run/slurm/; SLURM_CONF in the environment picks the
  // cluster). `slurm_config` is the operator's YAML (run/slurm/slurm_config.h), "" for defaults.
  std::string backend = "local";
  std::string slurm_config;

  // Issue #16: jobs with imageUri run their images through podman (run/container/).
  std::string podman;                            // "" = podman on PATH
  std::string registry_auth_file;                // credentials for pulls, "" for none
  std::vector<std::string> insecure_registries;  // loopback HOST:PORTs allowed over HTTP
  std::vector<std::string> container_ulimits;    // "nofile=S:H"…; empty: detected
  // "podman" (images run as containers) or "host" (a container replica's containerCommand runs
  // on this machine, no image: trusted setups and benchmarks of trainyard's own overhead).
  std::string containers = "podman";

  // Issue #17: "none" (no checks; only on a loopback `listen`, unless `insecure_no_auth`) or
  // "tokens" (every request but /healthz needs a bearer token of `trainyard auth create-token`,
  // checked against its grants; the tokens are in `<data dir>/tokens.db`).
  std::string auth = "none";
  bool insecure_no_auth = false;  // the operator's explicit choice to serve others unchecked
  // HTTPS: the certificate chain and private key (PEM); both or neither.
  std::string tls_cert;
  std::string tls_key;
  // Issue #17 (app/job_isolation.h): the unprivileged user jobs' code runs as ("" = the
  // server's own; needs a root server and the local backend), the variables of the server's
  // environment jobs get beyond plan/base_environment.h's list ("NAME" or "PREFIX*"), and the
  // directories local packageUris may come from (none given: any path on a single user's server,
  // none once there are tokens or a run-as user).
  std::string run_as;
  std::vector<std::string> pass_env;
  std::vector<std::string> package_dirs;
};

struct ListenAddress {
  std::string host;  // an address literal, without brackets
  std::uint16_t port = 0;
};

// Parses `ServeOptions::listen`; INVALID_ARGUMENT (on "listen") when malformed.
Result<ListenAddress> ParseListenAddress(std::string_view listen);

// Whether `host` (a `ListenAddress::host`) reaches this machine only: 127.0.0.0/8, ::1,
// "localhost".
bool IsLoopbackHost(std::string_view host);

// The refusal of `options.auth` on `address`: an unknown value, or no authentication on an
// address others can reach without `insecure_no_auth` (FAILED_PRECONDITION saying what to do).
Status CheckAuthChoice(const ServeOptions& options, const ListenAddress& address);

// Runs the daemon; returns the process exit code (0 after a clean shutdown on SIGINT/SIGTERM,
// 1 when it could not start, with the reason on stderr). Once listening it prints one line to
// stderr, "trainyard: serving on http://127.0.0.1:PORT/ (data dir DIR)", with the real port
// (https:// with a certificate).
int Serve(const ServeOptions& options);

}  // namespace trainyard::app
