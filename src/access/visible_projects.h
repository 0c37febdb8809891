// Which projects a caller may see (trainyard v1's caller, issue #36): the console's picker offers
// them, and a caller who sees every project may also name any other. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "access/principal.h"

namespace trainyard::access {

// The project a server without tokens, or an admin, is always offered, whether or not it holds
// anything yet (the CLI's and the console's default).
inline constexpr std::string_view kDefaultProject = "default";

// Whether `caller` (nullopt: the server checks no tokens) may see every project: no tokens, or a
// grant of a role that spans projects (admin).
bool SeesAllProjects(const std::optional<Principal>& caller);

// The projects offered to `caller` (nullopt: no tokens): the projects its grants name; when it
// sees every project, also "default" and every one of `held` (the projects that hold jobs or
// buckets). Sorted, each once.
std::vector<std::string> VisibleProjects(const std::optional<Principal>& caller,
                                         const std::vector<std::string>& held);

}  // namespace trainyard::access
