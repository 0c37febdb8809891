#include "cli/cli.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <unistd.h>  // isatty

#include "agent/node_agent.h"
#include "base/clock.h"
#include "catalog/catalog.h"
#include "cli/auth_tree.h"
#include "cli/commands.h"
#include "cli/jobs_tree.h"
#include "cli/kubeconfig.h"
#include "cli/local_train_command.h"
#include "cli/vertex_tree.h"
#include "run/container/podman_runtime.h"
#include "server/serve.h"

namespace trainyard::cli {
namespace {

// "trainyard.jobs.submit.training": the deepest command the parser reached, for messages.
std::string CommandPath(CLI::App& app) {
  std::string path = app.get_name();
  CLI::App* current = &app;
  while (true) {
    const auto chosen = current->get_subcommands();
    if (chosen.empty()) {
      return path;
    }
    current = chosen.front();
    path += "." + current->get_name();
  }
}

// ~/.local/share/trainyard, or ./trainyard-data when there is no $HOME.
std::string DefaultDataDir(const Environment& env) {
  if (env.user_home) {
    return *env.user_home + "/.local/share/trainyard";
  }
  return "trainyard-data";
}

std::optional<std::string> GetEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    return std::nullopt;
  }
  return std::string(value);
}

// Whether a status line can be drawn on stderr.
bool StderrIsTerminal() {
  return isatty(STDERR_FILENO) == 1 && GetEnv("TERM").value_or("dumb") != "dumb";
}

// Everything after the first bare `--` is user args for the trainer, as in gcloud.
std::optional<std::vector<std::string>> SplitUserArgs(std::vector<std::string>& args) {
  const auto separator = std::ranges::find(args, "--");
  if (separator == args.end()) {
    return std::nullopt;
  }
  std::vector<std::string> user_args(separator + 1, args.end());
  args.erase(separator, args.end());
  return user_args;
}

// `--flag=` gives the flag an empty value, as in gcloud (`--worker-pool-spec=` is an empty pool);
// CLI11 would take the next word instead, so the value becomes a word of its own.
std::vector<std::string> SplitEmptyValues(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    if (arg.size() > 3 && arg.starts_with("--") && arg.ends_with('=') &&
        arg.find('=') == arg.size() - 1) {
      out.push_back(arg.substr(0, arg.size() - 1));
      out.emplace_back();
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

}  // namespace

int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const Environment& env) {
  std::vector<std::string> command_line = args;
  const std::optional<std::vector<std::string>> user_args = SplitUserArgs(command_line);
  command_line = SplitEmptyValues(command_line);

  CLI::App app{"trainyard: a self-hosted AI Platform Training service and its command line.",
               "trainyard"};
  app.require_subcommand(1);
  JobsTree jobs(app);
  LocalTree local(app);
  VertexTree vertex(app);

  CLI::App* serve = app.add_subcommand("serve", "Run the trainyard server (ml v1 API).");
  server::ServeOptions serve_options;
  serve_options.data_dir = env.home.value_or(DefaultDataDir(env));
  serve->add_option("--listen", serve_options.listen,
                    "HOST:PORT to listen on (default 127.0.0.1:8470; port 0 picks a free one).");
  serve->add_option("--data-dir", serve_options.data_dir,
                    "Where the database and buckets live (default $TRAINYARD_HOME, else "
                    "~/.local/share/trainyard).");
  serve->add_option("--threads", serve_options.threads, "HTTP worker threads (default 2).")
      ->check(CLI::Range(1, 64));
  serve
      ->add_option("--max-connections", serve_options.max_connections,
                   "Open HTTP connections at most; one more takes the place of an idle one that "
                   "never presented a valid token, or is answered 503 at once (default 512; keep "
                   "it under the process's open-file limit).")
      ->check(CLI::Range(1, 1'000'000));
  serve
      ->add_option("--max-connections-per-address", serve_options.max_connections_per_address,
                   "Open HTTP connections from one client address at most, the same way "
                   "(default 64).")
      ->check(CLI::Range(1, 1'000'000));
  serve
      ->add_option("--body-memory-budget", serve_options.body_memory_budget,
                   "Bytes of request bodies held in memory at once, by all connections; a "
                   "request that does not fit is answered 503 with its body unread (default "
                   "256MiB; e.g. 1GiB).")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t{1}, UINT64_MAX));
  serve
      ->add_option("--body-disk-budget", serve_options.body_disk_budget,
                   "Bytes of uploads spooled to disk at once, by all connections, the same way "
                   "(default 8GiB; below 5GiB it also lowers the largest upload accepted).")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t{1}, UINT64_MAX));
  serve
      ->add_option("--package-cache-size", serve_options.package_cache_bytes,
                   "Installed packages kept for later jobs, at most (default 5GiB; e.g. 500MiB; "
                   "0: no limit); least recently used ones go first.")
      ->transform(CLI::AsSizeValue(false));
  serve
      ->add_option("--accelerator-emulation", serve_options.accelerator_emulation,
                   "Emulate N devices of every GPU/TPU type on this machine, so GPU/TPU jobs run "
                   "without them (replicas see CUDA_VISIBLE_DEVICES=\"\"); alone, N is 64.")
      ->expected(0, 1)
      ->default_str("64")
      ->check(CLI::Range(1, 4096));
  serve->add_option("--cluster-file", serve_options.cluster_file,
                    "YAML file describing the nodes (CPUs, memory, accelerators) instead of "
                    "detecting this machine.");
  std::string accounting = "shared";
  serve
      ->add_option("--resource-accounting", accounting,
                   "shared (default: replicas share CPUs and memory, as on a workstation) or "
                   "strict (machine types' vCPUs and memory must fit the node).")
      ->check(CLI::IsMember({"shared", "strict"}));
  serve->add_option("--python", serve_options.python,
                    "Interpreter for runtime-version jobs (default /usr/bin/python3).");
  std::vector<std::string> python_versions;
  serve->add_option("--python-for", python_versions,
                    "VERSION=PATH: the interpreter for jobs asking pythonVersion VERSION "
                    "(repeatable).");
  serve
      ->add_option("--max-restarts", serve_options.max_restarts,
                   "Restarts of a replica killed by a signal before its job fails (default 3).")
      ->check(CLI::Range(0, 100));
  double stop_grace_seconds = 10;
  serve
      ->add_option("--stop-grace", stop_grace_seconds,
                   "Seconds between SIGTERM and SIGKILL when stopping replicas (default 10).")
      ->check(CLI::Range(0.0, 3600.0));
  serve
      ->add_option("--backend", serve_options.backend,
                   "local (default: jobs run on this machine) or slurm (each job becomes one "
                   "heterogeneous Slurm job; SLURM_CONF picks the cluster, as for sbatch).")
      ->check(CLI::IsMember({"local", "slurm"}));
  serve->add_option("--slurm-config", serve_options.slurm_config,
                    "With --backend slurm: YAML file naming partitions, GRES types, ports and "
                    "node addresses (docs/slurm.md).");
  serve->add_option("--podman", serve_options.podman,
                    "The podman executable that runs container-image jobs (default: podman on "
                    "PATH).");
  serve->add_option("--registry-auth-file", serve_options.registry_auth_file,
                    "Registry credentials for image pulls (containers-auth.json, as `podman "
                    "login --authfile` writes).");
  serve->add_option("--insecure-registry", serve_options.insecure_registries,
                    "HOST:PORT of a registry on loopback that may be pulled from over plain "
                    "HTTP (repeatable).");
  serve->add_option("--container-ulimit", serve_options.container_ulimits,
                    "NAME=SOFT:HARD for every container (repeatable; default: nofile and nproc "
                    "from this process's limits).");
  serve
      ->add_option("--containers", serve_options.containers,
                   "podman (default: image jobs run their images) or host (a container replica "
                   "runs its containerCommand on this machine, no image: for trusted setups and "
                   "benchmarks of trainyard's own overhead).")
      ->check(CLI::IsMember({"podman", "host"}));
  serve
      ->add_option("--auth", serve_options.auth,
                   "none (default: no checks, loopback --listen only) or tokens (every request "
                   "needs a token of `trainyard auth create-token`, checked against its roles).")
      ->check(CLI::IsMember({"none", "tokens"}));
  serve->add_option("--tls-cert", serve_options.tls_cert,
                    "Serve HTTPS with this certificate chain (PEM; with --tls-key).");
  serve->add_option("--tls-key", serve_options.tls_key, "The private key of --tls-cert (PEM).");
  serve->add_flag("--insecure-no-auth", serve_options.insecure_no_auth,
                  "Serve a non-loopback --listen without authentication: anyone who reaches it "
                  "can run code as this server's user.");
  serve->add_option("--run-as", serve_options.run_as,
                    "Run jobs' code (trainers, pip, containers) as this unprivileged user, not as "
                    "the server's (which must be root; local backend).");
  serve->add_option("--pass-env", serve_options.pass_env,
                    "A variable of this server's environment that jobs get too, NAME or PREFIX* "
                    "(repeatable; jobs get only PATH, HOME, the locale, proxies, CUDA's and a few "
                    "more by default).");
  serve->add_option("--package-dir", serve_options.package_dirs,
                    "A directory local packageUris may come from (repeatable; default: any path "
                    "on a single user's server, none with --auth tokens or --run-as).");
  serve->add_flag("--hold-queue", serve_options.hold_queue,
                  "Accept jobs but start none (maintenance); running jobs go on.");
  serve->add_flag("--stop-jobs-on-exit", serve_options.stop_jobs_on_exit,
                  "On SIGINT/SIGTERM, stop every running job (they FAIL) instead of leaving "
                  "their replicas running for the next server to take over.");
  serve->callback([&] {
    serve_options.strict_resources = accounting == "strict";
    serve_options.stop_grace =
        std::chrono::milliseconds(static_cast<std::int64_t>(stop_grace_seconds * 1000));
    for (const std::string& entry : python_versions) {
      const std::size_t equals = entry.find('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == entry.size()) {
        throw CLI::ValidationError("--python-for", "expected VERSION=PATH, got \"" + entry + "\"");
      }
      serve_options.python_versions.emplace_back(entry.substr(0, equals), entry.substr(equals + 1));
    }
  });

  // What each task of a job runs inside a Slurm allocation (agent/node_agent.h); not for
  // people, so not in the help.
  CLI::App* batch_task = app.add_subcommand("batch-task", "");
  std::string launch_file;
  batch_task->add_option("--launch", launch_file, "The job's launch file.")->required();
  run::container::PodmanOptions task_containers;
  batch_task->add_option("--podman", task_containers.podman);
  batch_task->add_option("--registry-auth-file", task_containers.auth_file);
  batch_task->add_option("--insecure-registry", task_containers.insecure_registries);
  batch_task->add_option("--container-ulimit", task_containers.ulimits);
  std::string task_containers_mode = "podman";
  batch_task->add_option("--containers", task_containers_mode);

  CLI::App* kubeconfig = app.add_subcommand(
      "kubeconfig", "Print a kubeconfig for kubectl that points at the trainyard server.");
  std::optional<std::string> kube_server;
  std::optional<std::string> kube_namespace;
  std::optional<std::string> kube_token_file;
  AddValueFlag(*kubeconfig, "--server", kube_server,
               "The server's URL (default: $TRAINYARD_SERVER, else http://127.0.0.1:8470/).");
  AddValueFlag(*kubeconfig, "--namespace", kube_namespace,
               "The context's namespace, a trainyard project (default: $TRAINYARD_PROJECT, else "
               "default).");
  AddValueFlag(*kubeconfig, "--token-file", kube_token_file,
               "The file holding the access token kubectl sends (a server with --auth tokens); "
               "the kubeconfig names the file (user.tokenFile), never the token. kubectl sends "
               "tokens only over https.");
  std::optional<std::string> kube_ca_file;
  AddValueFlag(*kubeconfig, "--certificate-authority", kube_ca_file,
               "The CA certificate file kubectl verifies an https server with.");

  AuthTree auth(app, env.home.value_or(DefaultDataDir(env)));

  CLI::App* catalog_cmd = app.add_subcommand("catalog", "List what jobs may ask for.");
  catalog_cmd->require_subcommand(1);
  std::string format = "table";
  std::vector<CLI::App*> listings;
  for (const char* name : {"machine-types", "accelerators", "regions", "scale-tiers"}) {
    CLI::App* listing = catalog_cmd->add_subcommand(name, std::string("List ") + name + ".");
    listing->add_option("--format", format, "table (default) or json.");
    listings.push_back(listing);
  }

  std::vector<std::string> reversed(command_line.rbegin(), command_line.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "ERROR: (" << CommandPath(app) << ") " << e.what() << "\n";
    return 2;
  }

  if (serve->parsed()) {
    return server::Serve(serve_options);
  }
  if (batch_task->parsed()) {
    const SystemClock clock;
    return agent::RunBatchTask(
        launch_file, [](std::string_view name) { return GetEnv(std::string(name).c_str()); },
        catalog::Catalog::Builtin(), clock, task_containers, task_containers_mode == "host");
  }
  if (kubeconfig->parsed()) {
    // kubectl reads the files later, maybe from elsewhere: absolute paths.
    const auto absolute = [](const std::optional<std::string>& path) {
      if (!path) {
        return std::string();
      }
      std::error_code ec;
      const std::filesystem::path full = std::filesystem::absolute(*path, ec);
      return ec ? *path : full.string();
    };
    out << Kubeconfig(ResolveServer(kube_server, env), ResolveProject(kube_namespace, env),
                      absolute(kube_token_file), absolute(kube_ca_file));
    return 0;
  }
  if (std::optional<int> rc = auth.Run(SystemClock(), out, err)) {
    return *rc;
  }
  if (std::optional<int> rc = jobs.Run(env, user_args, catalog::Catalog::Builtin(), out, err)) {
    return *rc;
  }
  if (std::optional<int> rc = vertex.Run(env, user_args, out, err)) {
    return *rc;
  }
  if (std::optional<int> rc = local.Run(env, user_args, err)) {
    return *rc;
  }
  if (user_args) {
    err << "ERROR: (" << CommandPath(app) << ") unrecognized arguments after `--`\n";
    return 2;
  }
  for (CLI::App* listing : listings) {
    if (listing->parsed()) {
      return RunCatalogListing(listing->get_name(), format, catalog::Catalog::Builtin(), out, err);
    }
  }
  err << "ERROR: (trainyard) no command given\n";
  return 2;
}

int Main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    return Run(args, std::cout, std::cerr,
               {.server = GetEnv("TRAINYARD_SERVER"),
                .project = GetEnv("TRAINYARD_PROJECT"),
                .region = GetEnv("TRAINYARD_REGION"),
                .home = GetEnv("TRAINYARD_HOME"),
                .user_home = GetEnv("HOME"),
                .python = GetEnv("TRAINYARD_PYTHON"),
                .token = GetEnv("TRAINYARD_TOKEN"),
                .ca_file = GetEnv("TRAINYARD_CA_FILE"),
                .stderr_is_tty = StderrIsTerminal()});
  } catch (const std::exception& e) {
    std::cerr << "ERROR: (trainyard) internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace trainyard::cli
