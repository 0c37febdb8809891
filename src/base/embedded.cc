#include "base/embedded.h"

#include <algorithm>

#include "base/check.h"

namespace trainyard::base {

std::optional<std::string_view> EmbeddedFiles::Find(std::string_view name) const {
  const auto found =
      std::ranges::find_if(files_, [&](const EmbeddedFile& file) { return file.name == name; });
  if (found == files_.end()) {
    return std::nullopt;
  }
  return found->bytes;
}

std::string_view EmbeddedFiles::Get(std::string_view name) const {
  const std::optional<std::string_view> bytes = Find(name);
  TY_CHECK(bytes.has_value()) << "no embedded file " << name;
  return *bytes;
}

}  // namespace trainyard::base
