// Starting and stopping replica processes: the effect behind which the controller's lifecycle
// logic sits. The local implementation is run/local/process_launcher.h; tests use a fake.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/exit_status.h"
#include "base/status.h"
#include "run/file_view.h"

namespace trainyard::run {

// A host directory or file inside a container.
struct Mount {
  std::string source;  // on the host
  std::string target;  // inside the container
  bool read_only = false;

  bool operator==(const Mount&) const = default;
};

// A replica that runs as a container (run/container_runtime.h): the image and what replaces its
// defaults, as Kubernetes does (docs/reference/ai-platform-training.md §2.3, "Command/args
// semantics"): a non-empty `entrypoint` replaces the image's ENTRYPOINT and drops its CMD;
// non-empty `args` replace its CMD.
struct ContainerSpec {
  std::string image;
  std::vector<std::string> entrypoint;
  std::vector<std::string> args;
  std::string name;  // the container's name, unique among running replicas
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<Mount> mounts;
  std::vector<int> device_indices;  // host GPUs (nvidia) the container gets, and no others
  std::string working_dir;          // inside the container (it must exist); "" for the image's
  std::string user;                 // "UID:GID" the container's processes run as; "" the image's
  // (name, address) lines added to the container's hosts file: its peers' names.
  std::vector<std::pair<std::string, std::string>> hosts;

  bool operator==(const ContainerSpec&) const = default;
};

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  // Set over the launcher's base environment (which is the server's own).
  std::vector<std::pair<std::string, std::string>> env;
  std::string working_dir;  // created (with parents) when missing
  // Launcher::Start: the replica's stdout and stderr become records (logs/log_record.h) appended
  // to `log_path`, and its supervisor writes how it ended to `exit_path` (ReadExitStatus).
  // Both are created with their directories when missing; a restart appends to the same log.
  std::string log_path;
  std::string exit_path;
  // Set: the replica is this container, started by the launcher's container runtime; `argv` is
  // unused, `env` is the container's environment and `working_dir` only the runtime client's.
  std::optional<ContainerSpec> container;
  // Set: the replica's program does not start until `Launcher::Release(pid)`. The caller records
  // the pid in between, so that a server that dies after the start and before the record leaves
  // nothing that ran: the next server finds the held replica (FindStarted) and stops it, where an
  // unheld one might have run to its end unseen and then been started again.
  bool held = false;
  // Set: what the replica's processes see of the server's files (run/file_view.h). A host
  // process gets it as its mount namespace when the launcher runs replicas as another user; a
  // container's mounts are the control layer's (replica_container.h).
  std::optional<FileView> view;
};

// How the replica whose supervisor wrote `exit_path` ended; nullopt when the file is absent or
// unreadable (the supervisor itself was killed, by SIGKILL to its process group, before it could
// write it). The file's text is as run/exit_file.h says; the status's `ended` is set when it
// records the time.
std::optional<ExitStatus> ReadExitStatus(const std::string& exit_path);

class Launcher {
 public:
  // Called once per started process when it ends, on a thread of the launcher's; must not call
  // back into the launcher while holding a lock the caller of Start() holds.
  using ExitCallback = std::function<void(int pid, ExitStatus status)>;

  virtual ~Launcher() = default;

  // Starts `spec` without a shell, in a new process group whose id is the returned pid, with
  // stdin from /dev/null. FAILED_PRECONDITION naming the program when it cannot be executed
  // (not found, not executable) or, for a container, when this machine has no container engine;
  // INTERNAL for other failures. The exit is reported to the
  // callback the launcher was built with.
  virtual Result<int> Start(const ProcessSpec& spec) = 0;

  // Sends `signal` to the process group `pid` leads (the replica and anything it started), and
  // for a container to the container itself. A group that is already gone is not an error.
  virtual void SignalGroup(int pid, int signal) = 0;

  // Lets the held replica `pid` (ProcessSpec::held) start its program; nothing for one that is
  // not held, or has started already, or is gone.
  virtual void Release(int pid) = 0;

  // Takes over a replica an earlier launcher (an earlier server) started with `spec` as `pid`.
  // True: it still runs, and from now on its exit reaches the callback like a child's, with the
  // status its supervisor wrote to `spec.exit_path`. False: it has ended (or `pid` is now some
  // other process): the caller reads the outcome with ReadExitStatus(spec.exit_path).
  virtual Result<bool> Adopt(int pid, const ProcessSpec& spec) = 0;

  // The pid of a running replica an earlier launcher started with `spec`'s log and exit files,
  // found by its supervisor's command line, or 0 when there is none: for a start whose pid never
  // reached the run record (the server died between the two). Not adopted: call Adopt.
  virtual Result<int> FindStarted(const ProcessSpec& spec) = 0;

  // `count` TCP ports on 127.0.0.1 that were free when asked (bound to port 0, then released).
  virtual Result<std::vector<int>> FreePorts(int count) = 0;
};

}  // namespace trainyard::run
