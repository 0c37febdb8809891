// libFuzzer target for Slurm host lists and device lists (run/slurm/hostlist.h, task_env.h), which
// a task reads from its environment. Every input must give names or an INVALID_ARGUMENT, never a
// crash or an expansion past the limit; the names, joined by commas, must expand to themselves.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/check.h"
#include "run/slurm/hostlist.h"
#include "run/slurm/task_env.h"

namespace trainyard::run::slurm {
namespace {

constexpr std::size_t kMaxHosts = 1000;

void FuzzOne(std::string_view text) {
  const Result<std::vector<std::string>> hosts = ExpandHostlist(text, kMaxHosts);
  if (!hosts.ok()) {
    TY_CHECK(hosts.status().code() == Code::kInvalidArgument) << hosts.status().ToString();
  } else {
    TY_CHECK(!hosts->empty() && hosts->size() <= kMaxHosts) << hosts->size();
    std::string joined;
    for (const std::string& host : *hosts) {
      TY_CHECK(!host.empty() && host.find_first_of(",[]") == std::string::npos) << host;
      joined += joined.empty() ? host : "," + host;
    }
    const Result<std::vector<std::string>> again = ExpandHostlist(joined, kMaxHosts);
    TY_CHECK(again.ok()) << again.status().ToString();
    TY_CHECK(*again == *hosts) << joined;
  }
  const Result<std::vector<int>> devices = ParseDeviceList(text);
  if (!devices.ok()) {
    TY_CHECK(devices.status().code() == Code::kInvalidArgument) << devices.status().ToString();
  } else {
    for (const int device : *devices) {
      TY_CHECK(device >= 0) << device;
    }
  }
}

}  // namespace
}  // namespace trainyard::run::slurm

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::run::slurm::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
