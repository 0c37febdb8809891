// Running replicas as containers: the effect behind which the container engine sits. The local
// implementation is run/container/podman_runtime.h (podman, rootful, with an OCI runtime that
// works on the host); the launcher (run/local/process_launcher.h) starts a container replica as
// the runtime's client command under the replica supervisor, so logs, exit files, adoption after
// a server restart and the stop policy are the same as for processes.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "run/launcher.h"

namespace trainyard::run {

class ContainerRuntime {
 public:
  // One line of an image pull's progress ("Copying blob sha256:…"), for the job's service log.
  using Progress = std::function<void(std::string_view line)>;

  virtual ~ContainerRuntime() = default;

  // OK when containers can run here; FAILED_PRECONDITION saying what is missing and how to
  // install it otherwise (no container engine on this machine, no OCI runtime that works).
  virtual Status Available() const = 0;

  // The command (program first, a path) that runs `spec` in the foreground: attached, its output
  // on the command's stdout and stderr, its end the command's exit status (128 + N when killed by
  // signal N), stop signals sent to the command reaching the container, the container removed
  // when it ends. `env` is the container's environment, nothing else of the caller's.
  virtual std::vector<std::string> RunCommand(
      const ContainerSpec& spec,
      const std::vector<std::pair<std::string, std::string>>& env) const = 0;

  // Sends `signal` to the container `name` (its init passes it on); gone already is not an error.
  virtual void Kill(const std::string& name, int signal) = 0;

  // Makes `image` available locally: an image already there is used as is, else it is pulled,
  // each progress line reported. FAILED_PRECONDITION with the registry's own message when the
  // image cannot be had (missing, refused, unreachable); DEADLINE_EXCEEDED when the pull takes
  // longer than the runtime allows.
  virtual Status Pull(const std::string& image, const Progress& progress) = 0;
};

}  // namespace trainyard::run
