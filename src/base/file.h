// Reading a whole (small) file: run records, launch files, operator configuration.
#pragma once

#include <optional>
#include <string>

namespace trainyard {

// The bytes of the file at `path`; nullopt when it cannot be opened.
std::optional<std::string> ReadFileText(const std::string& path);

}  // namespace trainyard
