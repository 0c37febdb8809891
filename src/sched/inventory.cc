#include "sched/inventory.h"

#include <algorithm>
#include <utility>

#include "sched/node_labels.h"

namespace trainyard::sched {

int Node::CountOf(std::string_view accelerator) const {
  return static_cast<int>(std::ranges::count_if(
      devices, [&](const Device& device) { return device.accelerator == accelerator; }));
}

bool Node::HasLabels(const std::map<std::string, std::string>& selector) const {
  return std::ranges::all_of(selector, [&](const auto& pair) {
    const auto label = labels.find(pair.first);
    return label != labels.end() && label->second == pair.second;
  });
}

Node WithEmulatedAccelerators(Node node, const catalog::Catalog& catalog, int per_type) {
  int next = 0;
  for (const Device& device : node.devices) {
    next = std::max(next, device.index + 1);
  }
  for (const catalog::Accelerator& accelerator : catalog.accelerators()) {
    for (int i = 0; i < per_type; ++i) {
      node.devices.push_back(Device{
          .index = next++, .accelerator = accelerator.name, .model = "emulated", .emulated = true});
    }
  }
  return WithWellKnownLabels(std::move(node), catalog, kBuildArch);
}

}  // namespace trainyard::sched
