// A `run::ContainerRuntime` that runs nothing: it records the pulls and kills it was asked for,
// answers pulls with `pull_result` (after reporting `progress_lines`), and builds a recognisable
// run command. Thread-safe (pulls come from staging threads).
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "run/container_runtime.h"

namespace trainyard::testing {

class FakeContainerRuntime final : public run::ContainerRuntime {
 public:
  Status Available() const override { return available; }

  std::vector<std::string> RunCommand(
      const run::ContainerSpec& spec,
      const std::vector<std::pair<std::string, std::string>>& /*env*/) const override {
    return {"/fake/podman", "run", spec.image};
  }

  void Kill(const std::string& name, int signal) override {
    std::lock_guard lock(mu_);
    kills_.emplace_back(name, signal);
  }

  Status Pull(const std::string& image, const Progress& progress) override {
    {
      std::lock_guard lock(mu_);
      pulls_.push_back(image);
    }
    for (const std::string& line : progress_lines) {
      progress(line);
    }
    return pull_result;
  }

  std::vector<std::string> pulls() const {
    std::lock_guard lock(mu_);
    return pulls_;
  }

  Status available;
  Status pull_result;
  std::vector<std::string> progress_lines = {"Copying blob sha256:0123"};

 private:
  mutable std::mutex mu_;
  std::vector<std::string> pulls_;
  std::vector<std::pair<std::string, int>> kills_;
};

}  // namespace trainyard::testing
