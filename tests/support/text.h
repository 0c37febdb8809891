// Text helpers shared by tests.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace trainyard::testing {

// `text` split at line ends (a final line end adds no empty line).
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

}  // namespace trainyard::testing
