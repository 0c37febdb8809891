// Who a request comes from, what they may do, and the names and token text that identify them
// (issue #17). Pure and thread-safe; the token store is store/token_store.h, the check at the
// router api/access_check.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "access/roles.h"
#include "base/clock.h"
#include "base/status.h"

namespace trainyard::access {

// `role` in `project`. A role that spans projects (admin) holds everywhere; its project is "".
struct Grant {
  Role role = Role::kViewer;
  std::string project;

  friend bool operator==(const Grant&, const Grant&) = default;
};

// A caller the server has authenticated.
struct Principal {
  std::string name;  // the token's name; "job:PROJECT/JOB" for a replica's own token
  std::vector<Grant> grants;
};

// Whether `principal` may use `permission` on `project`. `project` "" is an action that spans
// projects (the server's metrics, a list across every namespace): only a spanning role allows it.
bool Allows(const Principal& principal, std::string_view permission, std::string_view project);

// The grants `role` gives over `projects`: one per project (duplicates dropped), or the one
// spanning grant of admin. INVALID_ARGUMENT (on "project") when a role that does not span
// projects is given none, or admin is given some (it holds in every project).
Result<std::vector<Grant>> GrantsFor(Role role, const std::vector<std::string>& projects);

// "editor on p, q", "admin (every project)".
std::string DescribeGrants(const std::vector<Grant>& grants);

// A token's name: 1-64 characters, a letter or digit first, then letters, digits and `.`, `_`,
// `@`, `-` (so an e-mail address works). The violation on `field` otherwise, naming the rule.
std::optional<FieldViolation> CheckTokenName(std::string_view name, std::string_view field);

// `--expires`: a duration from `now` ("90d", "12h", "30m", "45s") or an RFC 3339 time.
// INVALID_ARGUMENT (on "expires") otherwise, or when that time is not after `now`.
Result<WallTime> ParseExpiry(std::string_view text, WallTime now);

// A token's secret as `trainyard auth create-token` prints it: "ty_" and 43 base64url
// characters (32 random bytes).
inline constexpr std::string_view kTokenPrefix = "ty_";
inline constexpr std::size_t kTokenSecretLength = 43;
bool IsTokenSyntax(std::string_view token);

// What an `Authorization` header holds.
struct Credential {
  enum class Kind {
    kNone,       // no header (or an empty one)
    kBearer,     // "Bearer TOKEN" (the scheme in any case, as RFC 7235 says)
    kMalformed,  // another scheme, or a bearer value that is not a token68
  };
  Kind kind = Kind::kNone;
  std::string token;  // kBearer: the token as sent
};
Credential ParseAuthorization(std::string_view header);

}  // namespace trainyard::access
