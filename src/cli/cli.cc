#include "cli/cli.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "agent/node_agent.h"
#include "app/serve.h"
#include "app/serve_flags.h"
#include "base/clock.h"
#include "catalog/catalog.h"
#include "cli/commands/auth_tree.h"
#include "cli/commands/commands.h"
#include "cli/commands/jobs_tree.h"
#include "cli/commands/kubeconfig.h"
#include "cli/commands/sharing_tree.h"
#include "cli/commands/vertex_tree.h"
#include "cli/local/local_train_command.h"
#include "os/process.h"
#include "run/container/podman_runtime.h"

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
  return os::IsTerminal(os::kStderr) && GetEnv("TERM").value_or("dumb") != "dumb";
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
  app::ServeOptions serve_options;
  serve_options.data_dir = env.home.value_or(DefaultDataDir(env));
  app::AddServeFlags(*serve, serve_options);

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
  SharingTree sharing(app);

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
    return app::Serve(serve_options);
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
  if (std::optional<int> rc = sharing.Run(env, out, err)) {
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
