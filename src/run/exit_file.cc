#include "run/exit_file.h"

#include <charconv>

#include "base/time_format.h"

namespace trainyard::run {
namespace {

constexpr std::string_view kExited = "exited ";
constexpr std::string_view kSignaled = "signaled ";
constexpr std::string_view kEnded = "ended ";

// The number that is all of `text`, when it is one.
std::optional<int> ExitFileNumber(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

// The first line of `text` without its newline, removed from `text`; nullopt when `text` has no
// newline.
std::optional<std::string_view> TakeExitFileLine(std::string_view& text) {
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view line = text.substr(0, newline);
  text.remove_prefix(newline + 1);
  return line;
}

}  // namespace

std::string ExitFileText(const ExitStatus& status, WallTime ended) {
  std::string text = status.signaled ? std::string(kSignaled) + std::to_string(status.signal)
                                     : std::string(kExited) + std::to_string(status.code);
  text += "\n";
  text += kEnded;
  text += FormatTimestamp(ended);
  text += "\n";
  return text;
}

std::optional<ExitStatus> ParseExitFile(std::string_view text) {
  if (text.size() > kMaxExitFileBytes) {
    return std::nullopt;
  }
  const std::optional<std::string_view> how = TakeExitFileLine(text);
  if (!how.has_value()) {
    return std::nullopt;
  }
  ExitStatus status;
  if (how->starts_with(kExited)) {
    const std::optional<int> code = ExitFileNumber(how->substr(kExited.size()));
    if (!code.has_value()) {
      return std::nullopt;
    }
    status.code = *code;
  } else if (how->starts_with(kSignaled)) {
    const std::optional<int> signal = ExitFileNumber(how->substr(kSignaled.size()));
    if (!signal.has_value()) {
      return std::nullopt;
    }
    status.signaled = true;
    status.signal = *signal;
  } else {
    return std::nullopt;
  }
  if (text.empty()) {
    return status;  // written before the time was recorded
  }
  const std::optional<std::string_view> when = TakeExitFileLine(text);
  if (!when.has_value() || !text.empty() || !when->starts_with(kEnded)) {
    return std::nullopt;
  }
  status.ended = ParseTimestamp(when->substr(kEnded.size()));
  if (!status.ended.has_value()) {
    return std::nullopt;
  }
  return status;
}

}  // namespace trainyard::run
