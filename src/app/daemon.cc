#include "app/daemon.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <mutex>
#include <system_error>

#include <fmt/format.h>

#include "agent/cluster_job_backend.h"
#include "app/job_isolation.h"
#include "app/serve_parts.h"
#include "app/server.h"
#include "catalog/catalog.h"
#include "control/executor.h"
#include "control/job_controller.h"
#include "control/job_layout.h"
#include "control/local_backend.h"
#include "control/replica_history.h"
#include "control/sharing_admin.h"
#include "os/file.h"
#include "run/container/podman_runtime.h"
#include "run/local/package_cache.h"
#include "run/local/pip_stager.h"
#include "run/local/process_launcher.h"
#include "run/local/spawn.h"
#include "run/slurm/slurm_backend.h"
#include "store/audit_store.h"
#include "store/bucket_store.h"
#include "store/job_tokens.h"
#include "store/sharing_store.h"
#include "store/sqlite_job_store.h"
#include "store/token_store.h"

namespace trainyard::app {

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
  if (!os::IsExecutable(impl->options.supervisor)) {
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
          .cluster = [&d]() -> std::optional<control::ClusterView> {
            const control::SharingPolicyPtr sharing = d.sharing->Current();  // not under relay_mu
            std::lock_guard lock(d.relay_mu);
            if (d.relay_target == nullptr) {
              return std::nullopt;
            }
            return control::ClusterView{.inventory = d.inventory,
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
