// `app::Serve` in a child process (the `ty_serve_for_tests` binary, fork + exec), for tests
// that kill the server: its stderr is piped back so the test learns the port it printed.
#pragma once

#include <string>
#include <vector>

#include <sys/types.h>

namespace trainyard::testing {

class ServeProcess {
 public:
  // Starts `ty_serve_for_tests --listen 127.0.0.1:0 --data-dir <data_dir>` (plus `extra_args`)
  // and waits (at most 60 s) for its "serving on" line; `started()` says whether it came.
  explicit ServeProcess(const std::string& data_dir, std::vector<std::string> extra_args = {});
  ~ServeProcess();  // SIGKILLs and reaps the child if it is still running
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  bool started() const { return port_ > 0; }
  int port() const { return port_; }
  // Everything the child wrote to stderr so far (its start line, or why it did not start).
  const std::string& output() const { return output_; }

  void Signal(int signal);
  // Waits for the child to exit: its exit code, or -N when signal N ended it.
  int Wait();

 private:
  // Reads stderr until it holds a complete line containing `needle`, EOF, or the deadline.
  bool ReadUntil(const std::string& needle);

  pid_t pid_ = -1;
  int stderr_fd_ = -1;
  int port_ = 0;
  std::string output_;
};

}  // namespace trainyard::testing
