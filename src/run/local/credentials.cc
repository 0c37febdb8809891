#include "run/local/credentials.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

#include <pwd.h>
#include <unistd.h>

namespace trainyard::run::local {
namespace {

std::optional<unsigned> ParseId(std::string_view text) {
  unsigned value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  // (uid_t)-1 means "unchanged" to the set*id calls.
  if (text.empty() || ec != std::errc() || ptr != end || value == static_cast<unsigned>(-1)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

Result<RunAs> LookUpUser(std::string_view name) {
  const std::string user(name);
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(static_cast<std::size_t>(size > 0 ? size : 16384));
  passwd entry{};
  passwd* found = nullptr;
  int rc = 0;
  while ((rc = getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found)) == ERANGE) {
    buffer.resize(buffer.size() * 2);
  }
  if (rc != 0) {
    return Status::Internal("cannot look up user '" + user + "': " + std::strerror(rc));  // NOLINT
  }
  if (found == nullptr) {
    return Status::FailedPrecondition("--run-as: there is no user '" + user +
                                      "' on this machine (create it, e.g. with useradd --system "
                                      "--user-group " +
                                      user + ")");
  }
  if (entry.pw_uid == 0) {
    return Status::FailedPrecondition("--run-as: '" + user +
                                      "' is root; name an unprivileged user for jobs");
  }
  return RunAs{.name = user,
               .uid = entry.pw_uid,
               .gid = entry.pw_gid,
               .home = entry.pw_dir != nullptr ? entry.pw_dir : ""};
}

std::string UserIds(unsigned uid, unsigned gid) {
  return std::to_string(uid) + ":" + std::to_string(gid);
}

std::optional<RunAs> ParseUserIds(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return std::nullopt;
  }
  std::optional<unsigned> uid = ParseId(text.substr(0, colon));
  std::optional<unsigned> gid = ParseId(text.substr(colon + 1));
  if (!uid || !gid) {
    return std::nullopt;
  }
  return RunAs{.uid = *uid, .gid = *gid};
}

}  // namespace trainyard::run::local
