// Reading a YAML document as the JSON body it stands for (internal to model/), so that config
// files go through the one strict JSON decoder. YAML scalars carry no type, so each is converted
// by the type of the field at its path (fields.h), as gcloud does: `count: 4` and `count: "4"`
// are the same int64, `tpuTfVersion: 2.2` and `runtimeVersion: 2.11` keep their text. Anything
// the schema does not expect is passed on shallowly for the decoder to reject. Pure.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "model/violations.h"

namespace YAML {
class Node;
}  // namespace YAML

namespace trainyard::model::internal {

// 1-based line and column of a field in the YAML text, keyed by field path.
struct SourcePosition {
  int line = 0;
  int column = 0;
};
using SourcePositions = std::map<std::string, SourcePosition>;

// Converts `root`, a YAML document holding a `Job`, into JSON. Problems the decoder cannot see
// (non-string or duplicate keys) go to `out`; the position of every key and list item goes to
// `positions`. Returns nothing, with one violation, when aliases expand the document past a sane
// number of values (a "billion laughs" file).
std::optional<nlohmann::json> JobYamlToJson(const YAML::Node& root, Violations& out,
                                            SourcePositions& positions);

}  // namespace trainyard::model::internal
