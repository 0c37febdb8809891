#include "cli/commands/environment.h"

namespace trainyard::cli {
namespace {

std::string FirstSet(const std::optional<std::string>& flag, const std::optional<std::string>& env,
                     std::string_view fallback) {
  if (flag && !flag->empty()) {
    return *flag;
  }
  if (env && !env->empty()) {
    return *env;
  }
  return std::string(fallback);
}

}  // namespace

std::string ResolveServer(const std::optional<std::string>& flag, const Environment& env) {
  return FirstSet(flag, env.server, kDefaultServer);
}

std::string ResolveProject(const std::optional<std::string>& flag, const Environment& env) {
  return FirstSet(flag, env.project, kDefaultProject);
}

}  // namespace trainyard::cli
