#include "plan/kubeflow_config.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "plan/cluster_json.h"

namespace trainyard::plan {
namespace {

using nlohmann::ordered_json;

// docs/reference/kubeflow-tfjob.md §4.1: the ".svc" suffix the operator adds (no
// CUSTOM_CLUSTER_DOMAIN here).
constexpr std::string_view kServiceDomain = "svc";

bool IsIpv4(std::string_view host) {
  int parts = 0;
  while (true) {
    const std::size_t dot = host.find('.');
    const std::string_view part = host.substr(0, dot);
    if (part.empty() || part.size() > 3 ||
        !std::ranges::all_of(part, [](char c) { return c >= '0' && c <= '9'; }) ||
        std::stoi(std::string(part)) > 255) {
      return false;
    }
    ++parts;
    if (dot == std::string_view::npos) {
      return parts == 4;
    }
    host.remove_prefix(dot + 1);
  }
}

}  // namespace

KubeflowTask KubeflowTaskOf(const model::KubeflowNaming& naming, Role role, int index) {
  switch (role) {
    case Role::kMaster:
      return {naming.primary_type, 0};
    case Role::kWorker:
      // Without a Chief/Master the primary is worker 0, so the engine's workers follow it.
      return {"worker", naming.primary_type == "worker" ? index + 1 : index};
    case Role::kParameterServer:
      return {"ps", index};
    case Role::kEvaluator:
      return {"evaluator", index};
  }
  return {};
}

std::string KubeflowServiceName(const model::KubeflowNaming& naming, const KubeflowTask& task) {
  return fmt::format("{}-{}-{}", naming.job_name, task.type, task.index);
}

std::string KubeflowDnsName(const model::KubeflowNaming& naming, const KubeflowTask& task) {
  return fmt::format("{}.{}.{}", KubeflowServiceName(naming, task), naming.namespace_name,
                     kServiceDomain);
}

std::string KubeflowTfConfig(const std::vector<KubeflowMember>& members, const KubeflowTask& task) {
  // std::map orders the types as Go orders map keys (bytewise).
  std::map<std::string, std::vector<const KubeflowMember*>> by_type;
  for (const KubeflowMember& member : members) {
    by_type[member.task.type].push_back(&member);
  }
  ordered_json cluster = ordered_json::object();
  for (auto& [type, group] : by_type) {
    std::ranges::sort(group, {}, [](const KubeflowMember* member) { return member->task.index; });
    ordered_json addresses = ordered_json::array();
    for (const KubeflowMember* member : group) {
      addresses.push_back(member->address);
    }
    cluster[type] = std::move(addresses);
  }
  ordered_json config = ordered_json::object();
  config["cluster"] = std::move(cluster);
  config["task"] = {{"type", task.type}, {"index", task.index}};
  config["environment"] = "cloud";
  return internal::Dump(config);
}

bool IsAddressLiteral(std::string_view host) {
  if (host.find(':') != std::string_view::npos) {  // IPv6: hex groups, colons, maybe an IPv4 tail
    return std::ranges::all_of(host, [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':' || c == '.';
    });
  }
  return IsIpv4(host);
}

}  // namespace trainyard::plan
