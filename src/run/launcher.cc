#include "run/launcher.h"

#include <array>
#include <charconv>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <signal.h>

namespace trainyard::run {
namespace {

// The signals a replica is likely to die of; others are shown by number.
constexpr std::array<std::pair<int, std::string_view>, 10> kSignalNames = {{
    {SIGKILL, "SIGKILL"},
    {SIGTERM, "SIGTERM"},
    {SIGSEGV, "SIGSEGV"},
    {SIGABRT, "SIGABRT"},
    {SIGINT, "SIGINT"},
    {SIGHUP, "SIGHUP"},
    {SIGBUS, "SIGBUS"},
    {SIGFPE, "SIGFPE"},
    {SIGILL, "SIGILL"},
    {SIGPIPE, "SIGPIPE"},
}};

constexpr std::size_t kMaxExitFileBytes = 64;  // "signaled 15\n" and the like

// The number that is all of `text`, when it is one.
std::optional<int> ParseNumber(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::optional<ExitStatus> ReadExitStatus(const std::string& exit_path) {
  std::ifstream in(exit_path, std::ios::binary);
  std::string text;
  text.resize(kMaxExitFileBytes);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  std::string_view rest = text;
  if (!rest.ends_with('\n')) {
    return std::nullopt;
  }
  rest.remove_suffix(1);
  for (std::string_view word : {std::string_view("exited "), std::string_view("signaled ")}) {
    if (!rest.starts_with(word)) {
      continue;
    }
    std::optional<int> number = ParseNumber(rest.substr(word.size()));
    if (!number.has_value()) {
      return std::nullopt;
    }
    if (word.front() == 'e') {
      return ExitStatus{.code = *number};
    }
    return ExitStatus{.signaled = true, .signal = *number};
  }
  return std::nullopt;
}

std::string ExitStatus::Describe() const {
  if (!signaled) {
    return code == 0 ? "exited with status 0"
                     : fmt::format("exited with a non-zero status of {}", code);
  }
  for (const auto& [number, name] : kSignalNames) {
    if (number == signal) {
      return fmt::format("was terminated by signal {} ({})", signal, name);
    }
  }
  return fmt::format("was terminated by signal {}", signal);
}

}  // namespace trainyard::run
