// gcloud's `yaml` output format, for resources the server returns as JSON. gcloud 528 prints
// with ruamel.yaml (core/resource/yaml_printer.py): block style, two-space indents, sequences
// in a mapping not indented, lines folded past 80 columns, strings quoted only where a plain
// scalar would be read back as something else, multi-line strings as literal blocks (`|-`), and
// floats through resource_transform.TransformFloat. This reproduces those rules for the scalars
// a Job holds; line separators other than "\n" (U+0085, U+2028, U+2029) are escaped rather than
// folded as ruamel would. Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace trainyard::cli {

enum class KeyOrder {
  kSorted,   // gcloud's default for a whole resource
  kAsGiven,  // a projection such as `yaml(jobId,state)`
};

// The YAML text of the JSON document `json`, ending in a newline; INVALID_ARGUMENT when `json`
// does not parse.
Result<std::string> FormatYaml(std::string_view json, KeyOrder order = KeyOrder::kSorted);

// TransformFloat: six significant digits, at least one after the point, exponents only below
// 1e-04 or from 1e+09 ("1.0", "0.001", "1e-05", "1234567.0", "1e+10").
std::string FormatGcloudFloat(double value);

}  // namespace trainyard::cli
