#include "sched/quota_check.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "sched/amounts.h"

namespace trainyard::sched {
namespace {

constexpr std::string_view kService = "aiplatform.googleapis.com/";

std::string Amount(const QuotaExcess& excess, std::int64_t value) {
  return excess.kube_name == "requests.memory" ? fmt::format("{}Mi", value) : std::to_string(value);
}

}  // namespace

std::string AcceleratorQuotaMetric(std::string_view name) {
  std::string lower;
  for (const char c : name) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (const std::size_t tesla = lower.find("tesla_"); tesla != std::string::npos) {
    lower.erase(tesla, 6);
  }
  const bool tpu = lower.starts_with("tpu");
  return fmt::format("custom_model_training_{}_{}", lower, tpu ? "cores" : "gpus");
}

std::vector<QuotaExcess> QuotaExcesses(const ProjectQuota* quota, const JobDemand& job) {
  std::vector<QuotaExcess> excesses;
  if (quota == nullptr) {
    return excesses;
  }
  const Amounts need = AmountsOf(job);
  const auto& devices = need.devices;
  const std::int64_t cpus = need.cpus;
  const std::int64_t memory_mib = need.memory_mib;
  for (const auto& [accelerator, count] : devices) {
    const auto limit = quota->accelerators.find(accelerator);
    if (limit != quota->accelerators.end() && count > limit->second) {
      const std::string metric = AcceleratorQuotaMetric(accelerator);
      excesses.push_back({.metric = metric,
                          .what = accelerator,
                          .kube_name = "requests." + metric,
                          .requested = count,
                          .limit = limit->second});
    }
  }
  if (quota->cpus && cpus > *quota->cpus) {
    excesses.push_back({.metric = "custom_model_training_cpus",
                        .what = "vCPUs",
                        .kube_name = "requests.cpu",
                        .requested = cpus,
                        .limit = *quota->cpus});
  }
  if (quota->memory_mib && memory_mib > *quota->memory_mib) {
    excesses.push_back({.metric = "custom_model_training_memory_mib",
                        .what = "MiB of memory",
                        .kube_name = "requests.memory",
                        .requested = memory_mib,
                        .limit = *quota->memory_mib});
  }
  if (quota->jobs && *quota->jobs < 1) {
    excesses.push_back({.metric = "custom_model_training_concurrent_jobs",
                        .what = "jobs",
                        .kube_name = "count/jobs",
                        .requested = 1,
                        .limit = *quota->jobs});
  }
  return excesses;
}

Status QuotaRefusal(std::string_view project, const std::vector<QuotaExcess>& excesses) {
  TY_CHECK(!excesses.empty()) << "a quota refusal needs an excess";
  std::string metrics;
  std::vector<FieldViolation> violations;
  for (const QuotaExcess& excess : excesses) {
    metrics += (metrics.empty() ? "" : ", ") + std::string(kService) + excess.metric;
    violations.push_back(
        {fmt::format("project:{}", project),
         fmt::format("Quota {}{} of project {} is {} {}; the job needs {} at once.", kService,
                     excess.metric, project, excess.limit, excess.what, excess.requested)});
  }
  const QuotaExcess& first = excesses.front();
  return Status::FromCode(
      Code::kResourceExhausted,
      fmt::format("The following quota metrics exceed quota limits: {}. The job needs {} {} at "
                  "once and project {}'s quota is {}; it can never run within it (trainyard "
                  "quota describe {}).",
                  metrics, first.requested, first.what, project, first.limit, project),
      std::move(violations));
}

std::string KubeQuotaMessage(std::string_view project, const std::vector<QuotaExcess>& excesses) {
  std::string requested;
  std::string limited;
  for (const QuotaExcess& excess : excesses) {
    const std::string_view comma = requested.empty() ? "" : ",";
    requested += fmt::format("{}{}={}", comma, excess.kube_name, Amount(excess, excess.requested));
    limited += fmt::format("{}{}={}", comma, excess.kube_name, Amount(excess, excess.limit));
  }
  return fmt::format("exceeded quota: {}, requested: {}, limited: {}", project, requested, limited);
}

std::map<std::string, Amounts, std::less<>> UseByProject(const Inventory& inventory,
                                                         const std::vector<Allocation>& running) {
  std::map<std::string, Amounts, std::less<>> use;
  std::set<std::string_view, std::less<>> jobs;
  for (const Allocation& allocation : running) {
    const std::string_view key = allocation.key;
    const std::size_t slash = key.find('/');
    Amounts& project = use[std::string(key.substr(0, slash))];
    Amounts held = AmountsOf(allocation, inventory);
    const std::size_t end = slash == std::string_view::npos ? key.size() : key.find('/', slash + 1);
    held.jobs = jobs.insert(key.substr(0, end)).second ? 1 : 0;  // a study's trials: one job
    project.Add(held);
  }
  return use;
}

}  // namespace trainyard::sched
