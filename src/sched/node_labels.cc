#include "sched/node_labels.h"

#include <algorithm>
#include <string>
#include <utility>

namespace trainyard::sched {
namespace {

constexpr std::size_t kMaxNameLength = 63;     // a label name or value
constexpr std::size_t kMaxPrefixLength = 253;  // a DNS subdomain

bool IsAlphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsNameChar(char c) {
  return IsAlphanumeric(c) || c == '-' || c == '_' || c == '.';
}

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63 characters.
bool IsName(std::string_view text) {
  return !text.empty() && text.size() <= kMaxNameLength && IsAlphanumeric(text.front()) &&
         IsAlphanumeric(text.back()) && std::ranges::all_of(text, IsNameChar);
}

// A DNS-1123 subdomain: dot-separated labels of [a-z0-9]([-a-z0-9]*[a-z0-9])?.
bool IsDnsSubdomain(std::string_view text) {
  if (text.empty() || text.size() > kMaxPrefixLength) {
    return false;
  }
  const auto lower = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  while (true) {
    const std::size_t dot = text.find('.');
    const std::string_view part = text.substr(0, dot);
    if (part.empty() || !lower(part.front()) || !lower(part.back()) ||
        !std::ranges::all_of(part, [&](char c) { return lower(c) || c == '-'; })) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    text.remove_prefix(dot + 1);
  }
}

// `text` as a label value the way GPU feature discovery makes one of a product name: every
// character a value cannot hold becomes '-', then what a value may not start or end with goes.
std::string AsLabelValue(std::string_view text) {
  std::string value;
  for (const char c : text.substr(0, kMaxNameLength)) {
    value += IsNameChar(c) ? c : '-';
  }
  const auto first = std::ranges::find_if(value, IsAlphanumeric);
  const auto last = std::find_if(value.rbegin(), value.rend(), IsAlphanumeric).base();
  return first < last ? std::string(first, last) : std::string();
}

// Only nvidia-smi reports models the catalog lacks, so such a device is an NVIDIA GPU.
bool IsNvidiaGpu(const Device& device, const catalog::Accelerator* accelerator) {
  return accelerator == nullptr ? device.accelerator.empty()
                                : accelerator->kind == catalog::AcceleratorKind::kGpu;
}

// The devices of one model: the catalog's type, or the driver's name when the catalog lacks it.
bool SameModel(const Device& a, const Device& b) {
  return a.accelerator.empty() ? b.accelerator.empty() && a.model == b.model
                               : a.accelerator == b.accelerator;
}

void AddGpuLabels(Node& node, const catalog::Catalog& catalog) {
  const auto gpu = std::ranges::find_if(node.devices, [&](const Device& device) {
    return IsNvidiaGpu(device, catalog.FindAccelerator(device.accelerator));
  });
  if (gpu == node.devices.end()) {
    return;
  }
  const catalog::Accelerator* accelerator = catalog.FindAccelerator(gpu->accelerator);
  // An emulated device's model is "emulated"; the catalog names what it stands for.
  const std::string& product =
      gpu->emulated && accelerator != nullptr ? accelerator->display_name : gpu->model;
  const auto count = std::ranges::count_if(
      node.devices, [&](const Device& device) { return SameModel(*gpu, device); });
  node.labels.try_emplace("nvidia.com/gpu.present", "true");
  node.labels.try_emplace("nvidia.com/gpu.product", AsLabelValue(product));
  node.labels.try_emplace("nvidia.com/gpu.count", std::to_string(count));
  if (accelerator != nullptr) {
    node.labels.try_emplace("cloud.google.com/gke-accelerator", accelerator->flag_name);
  }
}

}  // namespace

bool IsLabelKey(std::string_view key) {
  const std::size_t slash = key.find('/');
  if (slash == std::string_view::npos) {
    return IsName(key);
  }
  return IsDnsSubdomain(key.substr(0, slash)) && IsName(key.substr(slash + 1));
}

bool IsLabelValue(std::string_view value) {
  return value.empty() || IsName(value);
}

Node WithWellKnownLabels(Node node, const catalog::Catalog& catalog, std::string_view arch) {
  node.labels.try_emplace("kubernetes.io/hostname", AsLabelValue(node.name));
  node.labels.try_emplace("kubernetes.io/os", "linux");
  node.labels.try_emplace("kubernetes.io/arch", arch);
  AddGpuLabels(node, catalog);
  return node;
}

}  // namespace trainyard::sched
