// The user of `serve --run-as` (issue #17): looked up once at the server's start, and passed to
// the supervisor as "UID:GID" (the switch itself is os/child_setup.h's). Internal to run/.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "run/run_as.h"

namespace trainyard::run::local {

// `name` from the password database. FAILED_PRECONDITION naming it when there is no such user,
// or when it is root (running jobs as root is what --run-as exists to avoid).
Result<RunAs> LookUpUser(std::string_view name);

// "UID:GID", as `trainyard-replica --user` takes it.
std::string UserIds(unsigned uid, unsigned gid);
// The ids of a "UID:GID" text; nullopt unless it is two decimal numbers below 2^32 - 1.
std::optional<RunAs> ParseUserIds(std::string_view text);

}  // namespace trainyard::run::local
