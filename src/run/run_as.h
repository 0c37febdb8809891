// The unprivileged user a server runs its jobs' code as (issue #17, `trainyard serve --run-as`):
// trainers, pip and containers run with this user's ids instead of the server's, so job code
// cannot read the server's tokens, keys and databases or touch anything else the server may.
#pragma once

#include <string>

namespace trainyard::run {

struct RunAs {
  std::string name;
  unsigned uid = 0;
  unsigned gid = 0;  // the user's primary group; supplementary groups are dropped
  std::string home;  // from the password database; the job's HOME

  bool operator==(const RunAs&) const = default;
};

}  // namespace trainyard::run
