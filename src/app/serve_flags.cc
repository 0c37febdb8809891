#include "app/serve_flags.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace trainyard::app {
namespace {

// The flags that are not `ServeOptions` fields as given: they become fields once `serve` has
// parsed. Owned by the subcommand's callback, so they live as long as the parser.
struct ConvertedFlags {
  std::string accounting = "shared";
  std::vector<std::string> python_versions;  // VERSION=PATH
  double stop_grace_seconds = 10;
};

}  // namespace

void AddServeFlags(CLI::App& serve, ServeOptions& options) {
  const auto flags = std::make_shared<ConvertedFlags>();
  serve.add_option("--listen", options.listen,
                   "HOST:PORT to listen on (default 127.0.0.1:8470; port 0 picks a free one).");
  serve.add_option("--data-dir", options.data_dir,
                   "Where the database and buckets live (default $TRAINYARD_HOME, else "
                   "~/.local/share/trainyard).");
  serve.add_option("--threads", options.threads, "HTTP worker threads (default 2).")
      ->check(CLI::Range(1, 64));
  serve
      .add_option("--max-connections", options.max_connections,
                  "Open HTTP connections at most; one more takes the place of an idle one that "
                  "never presented a valid token, or is answered 503 at once (default 512; keep "
                  "it under the process's open-file limit).")
      ->check(CLI::Range(1, 1'000'000));
  serve
      .add_option("--max-connections-per-address", options.max_connections_per_address,
                  "Open HTTP connections from one client address at most, the same way "
                  "(default 64).")
      ->check(CLI::Range(1, 1'000'000));
  serve
      .add_option("--body-memory-budget", options.body_memory_budget,
                  "Bytes of request bodies held in memory at once, by all connections; a "
                  "request that does not fit is answered 503 with its body unread (default "
                  "256MiB; e.g. 1GiB).")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t{1}, UINT64_MAX));
  serve
      .add_option("--body-disk-budget", options.body_disk_budget,
                  "Bytes of uploads spooled to disk at once, by all connections, the same way "
                  "(default 8GiB; below 5GiB it also lowers the largest upload accepted).")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t{1}, UINT64_MAX));
  serve
      .add_option("--package-cache-size", options.package_cache_bytes,
                  "Installed packages kept for later jobs, at most (default 5GiB; e.g. 500MiB; "
                  "0: no limit); least recently used ones go first.")
      ->transform(CLI::AsSizeValue(false));
  serve
      .add_option("--accelerator-emulation", options.accelerator_emulation,
                  "Emulate N devices of every GPU/TPU type on this machine, so GPU/TPU jobs run "
                  "without them (replicas see CUDA_VISIBLE_DEVICES=\"\"); alone, N is 64.")
      ->expected(0, 1)
      ->default_str("64")
      ->check(CLI::Range(1, 4096));
  serve.add_option("--cluster-file", options.cluster_file,
                   "YAML file describing the nodes (CPUs, memory, accelerators) instead of "
                   "detecting this machine.");
  serve
      .add_option("--resource-accounting", flags->accounting,
                  "shared (default: replicas share CPUs and memory, as on a workstation) or "
                  "strict (machine types' vCPUs and memory must fit the node).")
      ->check(CLI::IsMember({"shared", "strict"}));
  serve.add_option("--python", options.python,
                   "Interpreter for runtime-version jobs (default /usr/bin/python3).");
  serve.add_option("--python-for", flags->python_versions,
                   "VERSION=PATH: the interpreter for jobs asking pythonVersion VERSION "
                   "(repeatable).");
  serve
      .add_option("--max-restarts", options.max_restarts,
                  "Restarts of a replica killed by a signal before its job fails (default 3).")
      ->check(CLI::Range(0, 100));
  serve
      .add_option("--stop-grace", flags->stop_grace_seconds,
                  "Seconds between SIGTERM and SIGKILL when stopping replicas (default 10).")
      ->check(CLI::Range(0.0, 3600.0));
  serve
      .add_option("--backend", options.backend,
                  "local (default: jobs run on this machine) or slurm (each job becomes one "
                  "heterogeneous Slurm job; SLURM_CONF picks the cluster, as for sbatch).")
      ->check(CLI::IsMember({"local", "slurm"}));
  serve.add_option("--slurm-config", options.slurm_config,
                   "With --backend slurm: YAML file naming partitions, GRES types, ports and "
                   "node addresses (docs/slurm.md).");
  serve.add_option("--podman", options.podman,
                   "The podman executable that runs container-image jobs (default: podman on "
                   "PATH).");
  serve.add_option("--registry-auth-file", options.registry_auth_file,
                   "Registry credentials for image pulls (containers-auth.json, as `podman "
                   "login --authfile` writes).");
  serve.add_option("--insecure-registry", options.insecure_registries,
                   "HOST:PORT of a registry on loopback that may be pulled from over plain "
                   "HTTP (repeatable).");
  serve.add_option("--container-ulimit", options.container_ulimits,
                   "NAME=SOFT:HARD for every container (repeatable; default: nofile and nproc "
                   "from this process's limits).");
  serve
      .add_option("--containers", options.containers,
                  "podman (default: image jobs run their images) or host (a container replica "
                  "runs its containerCommand on this machine, no image: for trusted setups and "
                  "benchmarks of trainyard's own overhead).")
      ->check(CLI::IsMember({"podman", "host"}));
  serve
      .add_option("--auth", options.auth,
                  "none (default: no checks, loopback --listen only) or tokens (every request "
                  "needs a token of `trainyard auth create-token`, checked against its roles).")
      ->check(CLI::IsMember({"none", "tokens"}));
  serve.add_option("--tls-cert", options.tls_cert,
                   "Serve HTTPS with this certificate chain (PEM; with --tls-key).");
  serve.add_option("--tls-key", options.tls_key, "The private key of --tls-cert (PEM).");
  serve.add_flag("--insecure-no-auth", options.insecure_no_auth,
                 "Serve a non-loopback --listen without authentication: anyone who reaches it "
                 "can run code as this server's user.");
  serve.add_option("--run-as", options.run_as,
                   "Run jobs' code (trainers, pip, containers) as this unprivileged user, not as "
                   "the server's (which must be root; local backend).");
  serve.add_option("--pass-env", options.pass_env,
                   "A variable of this server's environment that jobs get too, NAME or PREFIX* "
                   "(repeatable; jobs get only PATH, HOME, the locale, proxies, CUDA's and a few "
                   "more by default).");
  serve.add_option("--package-dir", options.package_dirs,
                   "A directory local packageUris may come from (repeatable; default: any path "
                   "on a single user's server, none with --auth tokens or --run-as).");
  serve.add_flag("--hold-queue", options.hold_queue,
                 "Accept jobs but start none (maintenance); running jobs go on.");
  serve.add_flag("--stop-jobs-on-exit", options.stop_jobs_on_exit,
                 "On SIGINT/SIGTERM, stop every running job (they FAIL) instead of leaving "
                 "their replicas running for the next server to take over.");
  serve.callback([flags, &options] {
    options.strict_resources = flags->accounting == "strict";
    options.stop_grace =
        std::chrono::milliseconds(static_cast<std::int64_t>(flags->stop_grace_seconds * 1000));
    for (const std::string& entry : flags->python_versions) {
      const std::size_t equals = entry.find('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == entry.size()) {
        throw CLI::ValidationError("--python-for", "expected VERSION=PATH, got \"" + entry + "\"");
      }
      options.python_versions.emplace_back(entry.substr(0, equals), entry.substr(equals + 1));
    }
  });
}

}  // namespace trainyard::app
