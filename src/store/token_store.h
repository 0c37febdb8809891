// The server's API tokens (issue #17): each a name, grants (access/principal.h) and an optional
// expiry, stored under `<data dir>/tokens.db` only as the SHA-256 of its secret. The secret is
// random (32 bytes from the kernel), printed once by `trainyard auth create-token` and never
// stored. The server looks a token up on every request, so a revocation takes effect at once,
// also for a server that is running while the CLI changes the file. Thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "access/principal.h"
#include "base/clock.h"
#include "base/status.h"

namespace trainyard::store {

struct TokenInfo {
  std::string name;
  std::vector<access::Grant> grants;
  WallTime create_time;
  std::optional<WallTime> expire_time;  // none: until revoked
};

class TokenStore {
 public:
  virtual ~TokenStore() = default;

  // Stores `info` under a new secret and returns the secret ("ty_…", access::IsTokenSyntax).
  // ALREADY_EXISTS when a token of that name exists.
  virtual Result<std::string> Create(const TokenInfo& info) = 0;
  // Every token, by name.
  virtual Result<std::vector<TokenInfo>> List() const = 0;
  // Forgets the token; NOT_FOUND when there is none of that name.
  virtual Status Revoke(std::string_view name) = 0;
  // The token whose secret is `secret` (expired or not: the caller has the clock); NOT_FOUND
  // when none is (never issued, or revoked).
  virtual Result<TokenInfo> Find(std::string_view secret) const = 0;
};

// Opens (creating, readable by its owner only) the token database at `path`.
Result<std::unique_ptr<TokenStore>> OpenTokenStore(const std::string& path);

// The file of the token store in data dir `data_dir`.
std::string TokenStorePath(std::string_view data_dir);

}  // namespace trainyard::store
