#include "run/launcher.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "os/no_follow.h"
#include "run/exit_file.h"

namespace trainyard::run {

std::optional<ExitStatus> ReadExitStatus(const std::string& exit_path) {
  // A longer file is refused, not cut; a link or anything but a regular file is not read.
  const std::optional<std::string> text = os::ReadRegularFile(exit_path, kMaxExitFileBytes);
  return text ? ParseExitFile(*text) : std::nullopt;
}

}  // namespace trainyard::run
