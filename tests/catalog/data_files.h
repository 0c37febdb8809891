// The catalog's data files as the source tree holds them, for tests that load variants.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/build_paths.h"

namespace trainyard::catalog::testing {

inline const std::vector<std::string>& DataFileNames() {
  static const std::vector<std::string> kNames = {
      "machine_types.json", "accelerators.json", "accelerator_counts.json",
      "regions.json",       "scale_tiers.json",  "runtime_versions.json"};
  return kNames;
}

inline std::string ReadDataFile(const std::string& name) {
  std::ifstream in(trainyard::testing::SourceDir() + "/src/catalog/data/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// name -> text for all six files, in the order `Catalog::Load` takes them.
inline std::vector<std::pair<std::string, std::string>> ReadDataFiles() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& name : DataFileNames()) {
    files.emplace_back(name, ReadDataFile(name));
  }
  return files;
}

}  // namespace trainyard::catalog::testing
