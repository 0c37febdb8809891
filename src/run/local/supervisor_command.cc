#include "run/local/supervisor_command.h"

#include <algorithm>
#include <charconv>
#include <cstddef>

namespace trainyard::run::local {

std::vector<std::string> SupervisorCommand(const std::string& supervisor,
                                           const SupervisorArgs& args) {
  std::vector<std::string> command = {supervisor, "--log", args.log_path, "--exit", args.exit_path};
  if (!args.container.empty()) {
    command.emplace_back("--container");
    command.push_back(args.container);
  }
  if (!args.user.empty()) {
    command.emplace_back("--user");
    command.push_back(args.user);
  }
  if (args.env_fd >= 0) {
    command.emplace_back("--env-fd");
    command.push_back(std::to_string(args.env_fd));
  }
  if (!args.view.hidden.empty()) {
    command.emplace_back("--hide");
    command.push_back(args.view.hidden);
  }
  if (!args.view.private_root.empty()) {
    command.emplace_back("--private-root");
    command.push_back(args.view.private_root);
  }
  for (const auto& [flag, paths] :
       {std::pair{"--bind", &args.view.writable}, std::pair{"--ro-bind", &args.view.readable},
        std::pair{"--private", &args.view.private_dirs}}) {
    for (const std::string& path : *paths) {
      command.emplace_back(flag);
      command.push_back(path);
    }
  }
  if (args.held) {
    command.emplace_back("--held");
  }
  command.emplace_back("--");
  command.insert(command.end(), args.argv.begin(), args.argv.end());
  return command;
}

std::optional<SupervisorArgs> ParseSupervisorArgs(const std::vector<std::string>& args) {
  SupervisorArgs parsed;
  std::size_t i = 0;
  for (; i < args.size() && args[i] != "--"; i += 2) {
    if (args[i] == "--held") {  // the one option without a value
      if (parsed.held) {
        return std::nullopt;
      }
      parsed.held = true;
      --i;
      continue;
    }
    if (i + 1 >= args.size()) {
      return std::nullopt;
    }
    if (args[i] == "--env-fd") {
      const std::string& text = args[i + 1];
      int fd = -1;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), fd);
      if (parsed.env_fd >= 0 || error != std::errc() || end != text.data() + text.size() ||
          fd < 0) {
        return std::nullopt;
      }
      parsed.env_fd = fd;
      continue;
    }
    std::vector<std::string>* list = args[i] == "--bind"      ? &parsed.view.writable
                                     : args[i] == "--ro-bind" ? &parsed.view.readable
                                     : args[i] == "--private" ? &parsed.view.private_dirs
                                                              : nullptr;
    if (list != nullptr) {
      if (args[i + 1].empty()) {
        return std::nullopt;
      }
      list->push_back(args[i + 1]);
      continue;
    }
    std::string* value = args[i] == "--log"            ? &parsed.log_path
                         : args[i] == "--exit"         ? &parsed.exit_path
                         : args[i] == "--container"    ? &parsed.container
                         : args[i] == "--user"         ? &parsed.user
                         : args[i] == "--hide"         ? &parsed.view.hidden
                         : args[i] == "--private-root" ? &parsed.view.private_root
                                                       : nullptr;
    if (value == nullptr || !value->empty() || args[i + 1].empty()) {
      return std::nullopt;
    }
    *value = args[i + 1];
  }
  if (parsed.log_path.empty() || parsed.exit_path.empty() || i + 1 >= args.size()) {
    return std::nullopt;
  }
  parsed.argv.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
  return parsed;
}

std::string EncodeEnvironment(const std::vector<std::pair<std::string, std::string>>& env) {
  std::string text;
  for (const auto& [name, value] : env) {
    text += name;
    text += '=';
    text += value;
    text += '\0';
  }
  return text;
}

std::vector<std::string> DecodeEnvironment(std::string_view text) {
  std::vector<std::string> entries;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\0'), text.size());
    const std::string_view entry = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (const std::size_t eq = entry.find('='); eq != std::string_view::npos && eq > 0) {
      entries.emplace_back(entry);
    }
  }
  return entries;
}

ExitStatus ContainerExitStatus(int code) {
  constexpr int kSignalBase = 128;
  constexpr int kLastSignal = 64;  // SIGRTMAX on Linux
  if (code > kSignalBase && code <= kSignalBase + kLastSignal) {
    return ExitStatus{.signaled = true, .signal = code - kSignalBase};
  }
  return ExitStatus{.code = code};
}

bool IsSupervisorCommand(const std::vector<std::string>& command, std::string_view log_path,
                         std::string_view exit_path) {
  if (command.empty()) {
    return false;
  }
  const std::string_view program = command[0];
  const std::size_t slash = program.rfind('/');
  if (program.substr(slash == std::string_view::npos ? 0 : slash + 1) != kSupervisorName) {
    return false;
  }
  std::optional<SupervisorArgs> args =
      ParseSupervisorArgs(std::vector<std::string>(command.begin() + 1, command.end()));
  return args.has_value() && args->log_path == log_path && args->exit_path == exit_path;
}

}  // namespace trainyard::run::local
