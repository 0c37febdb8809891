// Reading the mappings of an operator's YAML file (the cluster file, the Slurm configuration)
// with field-level errors: every reader of such files checks keys the same way.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace YAML {
class Node;
}  // namespace YAML

namespace trainyard::model {

// The entries of the YAML mapping `map` (at `path`, "" for the root; children are
// "<path>.<key>") by key. A key that is not a string, not one of `known` (listed for users as
// `known_list`) or repeated adds a violation to `out` and is left out.
std::map<std::string, YAML::Node> YamlMappingEntries(
    const YAML::Node& map, const std::string& path,
    const std::set<std::string_view, std::less<>>& known, std::string_view known_list,
    std::vector<FieldViolation>& out);

}  // namespace trainyard::model
