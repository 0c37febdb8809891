#include "app/daemon.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <system_error>

#include <fmt/format.h>
#include <unistd.h>

#include "agent/cluster_job_backend.h"
#include "app/job_isolation.h"
#include "base/file.h"
#include "catalog/catalog.h"
#include "control/executor.h"
#include "control/job_controller.h"
#include "control/job_layout.h"
#include "control/local_backend.h"
#include "control/replica_history.h"
#include "control/sharing_admin.h"
#include "kube/tfjob_mapping.h"
#include "run/container/podman_runtime.h"
#include "run/local/package_cache.h"
#include "run/local/pip_stager.h"
#include "run/local/process_launcher.h"
#include "run/local/spawn.h"
#include "run/slurm/slurm_backend.h"
#include "sched/host_inventory.h"
#include "server/server.h"
#include "store/audit_store.h"
#include "store/bucket_store.h"
#include "store/job_tokens.h"
#include "store/sharing_store.h"
#include "store/sqlite_job_store.h"
#include "store/token_store.h"

namespace trainyard::app {
namespace {

// The text of the file an option names; INVALID_ARGUMENT on `option` when it cannot be read.
Result<std::string> ReadOptionFile(const std::string& path, const std::string& option,
                                   std::string_view what) {
  std::optional<std::string> text = ReadFileText(path);
  if (!text) {
    return Status::InvalidArgument(
        std::vector<FieldViolation>{{option, fmt::format("cannot read {} {}", what, path)}});
  }
  return std::move(*text);
}

// The nodes as a TFJob's mapping sees them: labels, and the accelerator types each offers.
std::vector<kube::NodeView> NodeViews(const sched::Inventory& inventory) {
  std::vector<kube::NodeView> views;
  for (const sched::Node& node : inventory.nodes) {
    kube::NodeView view{.name = node.name, .labels = node.labels};
    for (const sched::Device& device : node.devices) {
      if (!device.accelerator.empty() &&
          std::ranges::find(view.accelerators, device.accelerator) == view.accelerators.end()) {
        view.accelerators.push_back(device.accelerator);
      }
    }
    views.push_back(std::move(view));
  }
  return views;
}

// Whether CPUs and memory are exclusive (`--strict-resources`), as placement and the cluster view
// count them.
sched::Accounting AccountingOf(const ServeOptions& options) {
  return options.strict_resources ? sched::Accounting::kStrict : sched::Accounting::kShared;
}

Result<sched::Inventory> BuildInventory(const ServeOptions& options,
                                        const catalog::Catalog& catalog) {
  sched::Inventory inventory;
  if (!options.cluster_file.empty()) {
    Result<std::string> text =
        ReadOptionFile(options.cluster_file, "cluster_file", "the cluster file");
    if (!text.ok()) {
      return text.status();
    }
    Result<sched::Inventory> parsed = sched::ParseClusterFile(*text, catalog);
    if (!parsed.ok()) {
      return parsed.status();
    }
    inventory = std::move(*parsed);
  } else {
    Result<sched::Node> local = sched::DetectLocalNode(catalog);
    if (!local.ok()) {
      return local.status();
    }
    inventory.nodes.push_back(std::move(*local));
  }
  if (options.accelerator_emulation > 0) {
    for (sched::Node& node : inventory.nodes) {
      node =
          sched::WithEmulatedAccelerators(std::move(node), catalog, options.accelerator_emulation);
    }
  }
  return inventory;
}

// The Slurm backend for `--backend slurm`; null for the local backend.
Result<std::unique_ptr<run::slurm::SlurmBackend>> BuildSlurmBackend(
    const ServeOptions& options, const catalog::Catalog& catalog) {
  if (options.backend == "local") {
    return std::unique_ptr<run::slurm::SlurmBackend>();
  }
  if (options.backend != "slurm") {
    return Status::InvalidArgument(std::vector<FieldViolation>{
        {"backend", "unknown backend \"" + options.backend + "\": local or slurm"}});
  }
  Result<std::string> text =
      options.slurm_config.empty()
          ? std::string()
          : ReadOptionFile(options.slurm_config, "slurm_config", "the Slurm configuration");
  if (!text.ok()) {
    return text.status();
  }
  Result<run::slurm::SlurmConfig> config = run::slurm::ParseSlurmConfig(*text, catalog);
  if (!config.ok()) {
    return config.status();
  }
  const char* path = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe): before any thread
  if (Result<std::string> sbatch =
          run::local::FindProgram("sbatch", path != nullptr ? path : run::local::kDefaultPath, ".");
      !sbatch.ok()) {
    return Status::FailedPrecondition(
        "--backend slurm needs Slurm's clients (sbatch, squeue, "
        "scancel, sacct) on PATH: " +
        sbatch.status().message());
  }
  return std::make_unique<run::slurm::SlurmBackend>(std::move(*config));
}

// The container runtime for jobs with imageUri: podman as detected on this machine, with the
// operator's options. INVALID_ARGUMENT for a bad option (a registry not on loopback, an
// unreadable credentials file, a malformed ulimit). Never fails for a machine without podman:
// its image jobs FAIL saying how to install it.
Result<std::unique_ptr<run::container::PodmanRuntime>> BuildContainerRuntime(
    const ServeOptions& options) {
  std::vector<FieldViolation> violations;
  for (const std::string& registry : options.insecure_registries) {
    if (Status loopback = run::container::CheckInsecureRegistry(registry); !loopback.ok()) {
      violations.push_back({"insecure_registry", loopback.message()});
    }
  }
  if (!options.registry_auth_file.empty() && !ReadFileText(options.registry_auth_file)) {
    violations.push_back({"registry_auth_file", fmt::format("cannot read the registry "
                                                            "credentials file {}",
                                                            options.registry_auth_file)});
  }
  for (const std::string& ulimit : options.container_ulimits) {
    const std::size_t equals = ulimit.find('=');
    const std::size_t colon = ulimit.find(':');
    if (equals == std::string::npos || equals == 0 || colon == std::string::npos ||
        colon < equals ||
        ulimit.find_first_not_of("0123456789:", equals + 1) != std::string::npos) {
      violations.push_back(
          {"container_ulimit", fmt::format("\"{}\" is not NAME=SOFT:HARD", ulimit)});
    }
  }
  if (options.containers != "podman" && options.containers != "host") {
    violations.push_back(
        {"containers", fmt::format("unknown value \"{}\": podman or host", options.containers)});
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  run::container::PodmanOptions podman{.podman = options.podman,
                                       .ulimits = options.container_ulimits,
                                       .auth_file = options.registry_auth_file,
                                       .insecure_registries = options.insecure_registries};
  return std::make_unique<run::container::PodmanRuntime>(run::container::DetectPodmanHost(podman),
                                                         podman.pull_timeout);
}

std::string DefaultPython() {
  return ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

// The address replicas use to reach this server's storage API (https when it serves TLS: their
// client then needs the server's CA).
std::string LoopbackUrl(const std::string& host, int port, bool tls) {
  const char* scheme = tls ? "https" : "http";
  if (host == "0.0.0.0" || host.empty()) {
    return fmt::format("{}://127.0.0.1:{}", scheme, port);
  }
  if (host.find(':') != std::string::npos) {
    return fmt::format("{}://[{}]:{}", scheme, host == "::" ? "::1" : host, port);
  }
  return fmt::format("{}://{}:{}", scheme, host, port);
}

}  // namespace

struct Daemon::Impl {
  ServeOptions options;
  ListenAddress address;
  const Clock& clock;
  std::unique_ptr<store::JobStore> jobs;
  std::unique_ptr<store::BucketStore> buckets;
  std::unique_ptr<store::TokenStore> tokens;     // --auth tokens; null otherwise
  std::unique_ptr<store::JobTokens> job_tokens;  // with tokens: the replicas' own
  std::unique_ptr<store::AuditStore> audit;      // the activity audit log (store/audit_store.h)
  std::unique_ptr<store::SharingStore> sharing_store;  // <data>/sharing.db (issue #34)
  std::unique_ptr<control::SharingAdmin> sharing;      // the quotas, over sharing_store
  std::unique_ptr<control::JobController> controller;
  sched::Inventory inventory;
  // Exits reach the executor through here; the launcher exists before the executor does.
  std::mutex relay_mu;
  control::Executor* relay_target = nullptr;  // guarded by relay_mu
  std::unique_ptr<run::container::PodmanRuntime> containers;
  std::unique_ptr<run::local::ProcessLauncher> launcher;
  std::unique_ptr<run::local::PipStager> installer;
  std::unique_ptr<run::local::PackageCache> stager;  // in front of the installer
  std::unique_ptr<run::slurm::SlurmBackend> slurm;   // --backend slurm; null for local
  // With a manager: the local backend only for what a server without one left running here.
  std::unique_ptr<control::Backend> earlier_local;
  // The executor's backend (control/backend.h), chosen here once: the cluster one over Slurm
  // (agent/cluster_job_backend.h), else the local one (placement + the launcher).
  std::unique_ptr<control::Backend> backend;
  std::unique_ptr<control::Executor> executor;
  std::unique_ptr<server::Server> server;
  std::string job_home;      // --run-as: the job user's HOME, private to each job; "" otherwise
  std::string private_root;  // --run-as: where jobs' private directories are (job_isolation.h)
  bool stopped = false;

  explicit Impl(const Clock& c) : clock(c) {}
};

Daemon::Daemon(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Daemon::~Daemon() {
  Stop();
}

const sched::Inventory& Daemon::inventory() const {
  return impl_->inventory;
}

std::size_t Daemon::token_count() const {
  if (impl_->tokens == nullptr) {
    return 0;
  }
  Result<std::vector<store::TokenInfo>> tokens = impl_->tokens->List();
  return tokens.ok() ? tokens->size() : 0;
}

Result<std::unique_ptr<Daemon>> Daemon::Open(const ServeOptions& options, const Clock& clock) {
  auto impl = std::make_unique<Impl>(clock);
  impl->options = options;
  Result<ListenAddress> address = ParseListenAddress(options.listen);
  if (!address.ok()) {
    return address.status();
  }
  impl->address = *address;
  TY_RETURN_IF_ERROR(CheckAuthChoice(options, *address));
  if (options.data_dir.empty()) {
    return Status::InvalidArgument("no data directory given");
  }
  impl->options.supervisor =
      options.supervisor.empty() ? run::local::DefaultSupervisorPath() : options.supervisor;
  if (::access(impl->options.supervisor.c_str(), X_OK) != 0) {
    return Status::FailedPrecondition(fmt::format(
        "the replica supervisor {} is missing or not executable: install trainyard-replica next "
        "to trainyard",
        impl->options.supervisor));
  }
  Result<JobIsolation> isolation = PlanJobIsolation(options);
  if (!isolation.ok()) {
    return isolation.status();
  }
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    return Status::Unavailable(
        fmt::format("cannot create data directory {}: {}", options.data_dir, ec.message()));
  }
  TY_RETURN_IF_ERROR(PrepareDataDirectory(options.data_dir, isolation->user));
  const std::filesystem::path data_dir(options.data_dir);
  auto jobs = store::OpenSqliteJobStore((data_dir / "trainyard.db").string());
  if (!jobs.ok()) {
    return jobs.status();
  }
  impl->jobs = std::move(*jobs);
  auto buckets = store::OpenFileBucketStore((data_dir / "buckets").string(),
                                            (data_dir / "storage.db").string(), clock);
  if (!buckets.ok()) {
    return buckets.status();
  }
  impl->buckets = std::move(*buckets);
  if (options.auth == "tokens") {
    auto tokens = store::OpenTokenStore(store::TokenStorePath(options.data_dir));
    if (!tokens.ok()) {
      return tokens.status();
    }
    impl->tokens = std::move(*tokens);
    auto job_tokens = store::JobTokens::Open(store::JobTokenKeyPath(options.data_dir));
    if (!job_tokens.ok()) {
      return job_tokens.status();
    }
    impl->job_tokens = std::move(*job_tokens);
  }
  auto sharing = store::OpenSharingStore(store::SharingStorePath(options.data_dir));
  if (!sharing.ok()) {
    return sharing.status();
  }
  impl->sharing_store = std::move(*sharing);
  TY_RETURN_IF_ERROR(ProtectServerFiles(options.data_dir));
  const catalog::Catalog& catalog = catalog::Catalog::Builtin();
  impl->sharing = std::make_unique<control::SharingAdmin>(*impl->sharing_store, catalog);
  TY_RETURN_IF_ERROR(impl->sharing->Load());
  impl->controller = std::make_unique<control::JobController>(*impl->jobs, catalog, clock);
  impl->controller->SetLocalPackagePolicy(isolation->packages);
  impl->job_home = isolation->user ? isolation->user->home : "";
  if (isolation->user) {
    Result<std::string> private_root = PrepareJobPrivateRoot(options.data_dir);
    if (!private_root.ok()) {
      return private_root.status();
    }
    impl->private_root = std::move(*private_root);
  }
  Result<sched::Inventory> inventory = BuildInventory(options, catalog);
  if (!inventory.ok()) {
    return inventory.status();
  }
  impl->inventory = std::move(*inventory);
  Result<std::unique_ptr<run::slurm::SlurmBackend>> slurm = BuildSlurmBackend(options, catalog);
  if (!slurm.ok()) {
    return slurm.status();
  }
  impl->slurm = std::move(*slurm);
  Result<std::unique_ptr<run::container::PodmanRuntime>> containers =
      BuildContainerRuntime(options);
  if (!containers.ok()) {
    return containers.status();
  }
  impl->containers = std::move(*containers);
  Impl* raw = impl.get();
  impl->launcher = std::make_unique<run::local::ProcessLauncher>(
      [raw](int pid, ExitStatus status) {
        std::lock_guard lock(raw->relay_mu);
        if (raw->relay_target != nullptr) {
          raw->relay_target->OnExit(pid, status);
        }
      },
      impl->options.supervisor, isolation->environment, impl->containers.get(), isolation->user);
  const auto package_dirs = isolation->packages.any_path
                                ? std::nullopt
                                : std::optional<std::vector<std::string>>(isolation->packages.dirs);
  impl->installer = std::make_unique<run::local::PipStager>(
      run::local::PipStagerOptions{.environment = isolation->environment,
                                   .user = isolation->user,
                                   .package_dirs = package_dirs,
                                   .data_dir = run::local::AbsolutePath(options.data_dir)});
  impl->stager = std::make_unique<run::local::PackageCache>(
      *impl->installer,
      run::local::PackageCacheOptions{
          .dir = (data_dir / "packages").string(),
          .max_bytes = options.package_cache_bytes,
          // pip runs as this user: its installs are not another user's.
          .installer_identity = isolation->user ? fmt::format("uid {}", isolation->user->uid) : "",
          .package_dirs = package_dirs,
          .user = isolation->user});
  impl->controller->SetChangeListener([raw] {
    std::lock_guard lock(raw->relay_mu);
    if (raw->relay_target != nullptr) {
      raw->relay_target->Wake();
    }
  });
  impl->controller->SetSharingPolicy([raw] { return raw->sharing->Current(); });
  impl->sharing->SetChangeListener([raw](control::SharingPolicyPtr policy) {
    std::lock_guard lock(raw->relay_mu);
    if (raw->relay_target != nullptr) {
      raw->relay_target->SetSharingPolicy(std::move(policy));
    }
  });
  return std::unique_ptr<Daemon>(new Daemon(std::move(impl)));
}

Result<int> Daemon::Start() {
  Impl& d = *impl_;
  // The server's callers: the token store's, and a job's replicas while the job has not ended,
  // as editors of its project.
  d.audit = std::make_unique<store::FileAuditStore>(store::AuditDir(d.options.data_dir));
  server::ServerAccess access{.tokens = d.tokens.get(), .audit = d.audit.get()};
  if (d.job_tokens != nullptr) {
    access.job_tokens = [&d](std::string_view token) -> std::optional<access::Principal> {
      const std::optional<store::JobTokens::Subject> subject = d.job_tokens->Verify(token);
      if (!subject) {
        return std::nullopt;
      }
      const Result<model::Job> job = d.jobs->Get(subject->project, subject->job_id);
      if (!job.ok() || model::IsTerminal(job->state)) {
        return std::nullopt;
      }
      return access::Principal{.name = "job:" + subject->project + "/" + subject->job_id,
                               .grants = {{access::Role::kEditor, subject->project}}};
    };
  }
  d.server = std::make_unique<server::Server>(
      server::HttpServerOptions{
          .host = d.address.host,
          .port = d.address.port,
          .threads = d.options.threads,
          .max_body_bytes = d.options.max_body_bytes,
          .max_body_bytes_in_flight = d.options.body_memory_budget,
          .max_connections = d.options.max_connections,
          .max_connections_per_address = d.options.max_connections_per_address,
          .max_spooled_body_bytes = d.options.max_upload_bytes,
          .max_spooled_bytes_in_flight = d.options.body_disk_budget,
          .tls_cert_file = d.options.tls_cert,
          .tls_key_file = d.options.tls_key},
      *d.controller, *d.jobs, d.buckets.get(), d.clock, d.options.data_dir,
      [&d](std::string_view project, std::string_view job_id) {
        std::lock_guard lock(d.relay_mu);
        return d.relay_target != nullptr ? d.relay_target->Replicas(project, job_id) : std::nullopt;
      },
      [&d] { return NodeViews(d.inventory); }, std::move(access),
      server::TrainyardV1Sources{
          .cluster = [&d]() -> std::optional<server::ClusterView> {
            const control::SharingPolicyPtr sharing = d.sharing->Current();  // not under relay_mu
            std::lock_guard lock(d.relay_mu);
            if (d.relay_target == nullptr) {
              return std::nullopt;
            }
            return server::ClusterView{.inventory = d.inventory,
                                       .replicas = d.relay_target->AllReplicas(),
                                       .queue = d.relay_target->Queue(),
                                       .sharing = *sharing,
                                       .use = d.relay_target->UseByProject(),
                                       .accounting = AccountingOf(d.options)};
          },
          .recorded_replicas =
              [&d](std::string_view project, std::string_view job_id) {
                return control::RecordedReplicas(
                    control::JobLayout(d.options.data_dir, project, job_id), d.inventory);
              },
          .sharing = d.sharing.get()});
  Result<int> port = d.server->Start();
  if (!port.ok()) {
    return port.status();
  }

  control::ExecutorOptions executor;
  executor.data_dir = d.options.data_dir;
  executor.gcs_mount = d.buckets->root();
  executor.storage_emulator_host = LoopbackUrl(d.address.host, *port, !d.options.tls_cert.empty());
  if (d.job_tokens != nullptr) {
    executor.job_token = [tokens = d.job_tokens.get()](std::string_view project,
                                                       std::string_view job_id) {
      return tokens->Issue(project, job_id);
    };
  }
  executor.inventory = d.inventory;
  executor.accounting = AccountingOf(d.options);
  executor.python = d.options.python.empty() ? DefaultPython() : d.options.python;
  for (const auto& [version, python] : d.options.python_versions) {
    executor.python_by_version[version] = python;
  }
  executor.runtime_pythonpath = d.options.runtime_python_dir;
  if (executor.runtime_pythonpath.empty()) {
    std::error_code missing;
    const std::filesystem::path beside =
        std::filesystem::path(d.options.supervisor).parent_path() / "python";
    if (std::filesystem::is_directory(beside, missing)) {
      executor.runtime_pythonpath = beside.string();
    }
  }
  executor.restart.max_restarts = d.options.max_restarts;
  executor.stop_grace = d.options.stop_grace;
  executor.hold_queue = d.options.hold_queue;
  executor.usage_store = d.sharing_store.get();  // the fair-share order's memory, kept
  executor.containers = d.containers.get();
  executor.containers_on_host = d.options.containers == "host";
  // What a job's replicas see (control/job_view.h): its project's buckets, as they are when it
  // starts (a bucket created later is not in a running job's view).
  executor.project_buckets = [buckets = d.buckets.get()](std::string_view project) {
    std::vector<std::string> names;
    Result<std::vector<store::BucketInfo>> listed = buckets->ListBuckets(project);
    for (const store::BucketInfo& bucket :
         listed.ok() ? *listed : std::vector<store::BucketInfo>{}) {
      names.push_back(bucket.name);
    }
    return names;
  };
  executor.job_home = d.job_home;
  executor.private_root = d.private_root;
  auto local = [&] {
    return std::make_unique<control::LocalBackend>(
        *d.launcher, catalog::Catalog::Builtin(), d.clock,
        control::LocalBackendOptions{.data_dir = executor.data_dir,
                                     .inventory = executor.inventory});
  };
  if (d.slurm) {
    const run::slurm::SlurmConfig& slurm = d.slurm->config();
    const std::filesystem::path beside = std::filesystem::path(d.options.supervisor).parent_path();
    agent::ClusterJobOptions cluster{
        .data_dir = executor.data_dir,
        .task_command = {(beside / "trainyard").string(), "batch-task"},
        .supervisor = d.options.supervisor,
        .first_port = slurm.first_port,
        .port_count = slurm.port_count,
        .node_addresses = slurm.node_addresses,
        .restart = executor.restart};
    // The tasks run container replicas with the operator's options, on their nodes.
    for (const auto& [flag, values] :
         {std::pair{"--podman", std::vector<std::string>{d.options.podman}},
          std::pair{"--registry-auth-file", std::vector<std::string>{d.options.registry_auth_file}},
          std::pair{"--insecure-registry", d.options.insecure_registries},
          std::pair{"--container-ulimit", d.options.container_ulimits},
          std::pair{"--containers", std::vector<std::string>{d.options.containers}}}) {
      for (const std::string& value : values) {
        if (!value.empty()) {
          cluster.task_command.insert(cluster.task_command.end(), {flag, value});
        }
      }
    }
    d.earlier_local = local();
    d.backend = std::make_unique<agent::ClusterJobBackend>(
        *d.slurm, catalog::Catalog::Builtin(), d.clock, std::move(cluster), d.earlier_local.get());
  } else {
    d.backend = local();
  }
  executor.backend = d.backend.get();
  d.executor =
      std::make_unique<control::Executor>(*d.controller, *d.jobs, catalog::Catalog::Builtin(),
                                          d.clock, *d.launcher, *d.stager, std::move(executor));
  d.executor->SetSharingPolicy(d.sharing->Current());
  {
    std::lock_guard lock(d.relay_mu);
    d.relay_target = d.executor.get();
  }
  d.executor->SetSharingPolicy(d.sharing->Current());  // a change made meanwhile
  d.executor->Start();
  return port;
}

void Daemon::Stop() {
  Impl& d = *impl_;
  if (d.stopped) {
    return;
  }
  d.stopped = true;
  if (d.server) {
    d.server->Stop();
  }
  if (d.executor) {
    d.executor->Stop(/*stop_replicas=*/d.options.stop_jobs_on_exit);
    std::lock_guard lock(d.relay_mu);
    d.relay_target = nullptr;
  }
}

}  // namespace trainyard::app
