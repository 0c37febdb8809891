#include <array>
#include <chrono>
#include <mutex>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <sqlite3.h>

#include "base/base64.h"
#include "base/check.h"
#include "base/clock.h"
#include "os/file_handle.h"
#include "os/random.h"
#include "store/migrations.h"
#include "store/sqlite_connection.h"
#include "store/token_store.h"

namespace trainyard::store {
namespace {

using internal::Connection;
using internal::Migration;
using internal::Statement;

// v1: tokens by name; `sha256` is the hex digest of the secret (a secret of 256 random bits
// needs no salt or slow hash: nothing shorter than the secret itself finds it).
constexpr std::string_view kV1Tokens = R"sql(
CREATE TABLE tokens (
  name           TEXT    NOT NULL PRIMARY KEY,
  sha256         TEXT    NOT NULL UNIQUE,
  grants         TEXT    NOT NULL,
  create_time_ns INTEGER NOT NULL,
  expire_time_ns INTEGER
);
)sql";

constexpr std::array kTokenMigrations = {Migration{1, kV1Tokens}};

std::string Sha256Hex(std::string_view text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  const int ok =
      EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(), nullptr);
  TY_CHECK(ok == 1) << "SHA-256 failed";
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4U];
    hex += kHex[digest[i] & 0xFU];
  }
  return hex;
}

// "ty_" and 32 bytes from the kernel's random source, base64url without padding (43 chars).
Result<std::string> NewSecret() {
  Result<std::string> bytes = os::RandomBytes(32);
  if (!bytes.ok()) {
    return bytes.status();
  }
  return std::string(access::kTokenPrefix) + Base64Encode(*bytes, Base64Alphabet::kUrlSafe);
}

std::string EncodeGrants(const std::vector<access::Grant>& grants) {
  nlohmann::json list = nlohmann::json::array();
  for (const access::Grant& grant : grants) {
    list.push_back({{"role", access::RoleName(grant.role)}, {"project", grant.project}});
  }
  return list.dump();
}

// Rows this store wrote; anything else is a damaged file.
Result<std::vector<access::Grant>> DecodeGrants(const std::string& name, const std::string& text) {
  const nlohmann::json list = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  std::vector<access::Grant> grants;
  if (list.is_array()) {
    for (const nlohmann::json& item : list) {
      const std::optional<access::Role> role =
          item.is_object() && item.value("role", nlohmann::json()).is_string()
              ? access::ParseRole(item["role"].get<std::string>())
              : std::nullopt;
      if (!role || !item.value("project", nlohmann::json()).is_string()) {
        grants.clear();
        break;
      }
      grants.push_back({*role, item["project"].get<std::string>()});
    }
  }
  if (grants.empty()) {
    return Status::Internal("the token store's row for " + name + " has unreadable grants");
  }
  return grants;
}

class SqliteTokenStore final : public TokenStore {
 public:
  explicit SqliteTokenStore(std::unique_ptr<Connection> db) : db_(std::move(db)) {}

  Result<std::string> Create(const TokenInfo& info) override {
    Result<std::string> secret = NewSecret();
    if (!secret.ok()) {
      return secret.status();
    }
    std::lock_guard lock(mu_);
    Result<Statement> insert = db_->Prepare(
        "INSERT INTO tokens (name, sha256, grants, create_time_ns, expire_time_ns) "
        "VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!insert.ok()) {
      return insert.status();
    }
    insert->Bind(1, info.name);
    insert->Bind(2, Sha256Hex(*secret));
    insert->Bind(3, EncodeGrants(info.grants));
    insert->Bind(4, ToNanos(info.create_time));
    if (info.expire_time) {
      insert->Bind(5, ToNanos(*info.expire_time));
    }
    const Status status = insert->Run();
    if (!status.ok() && insert->LastErrorCode() == SQLITE_CONSTRAINT_PRIMARYKEY) {
      return Status::AlreadyExists("a token named " + info.name +
                                   " exists; revoke it first or choose another name");
    }
    if (!status.ok()) {
      return status;
    }
    return secret;
  }

  Result<std::vector<TokenInfo>> List() const override {
    std::lock_guard lock(mu_);
    Result<Statement> select = db_->Prepare(
        "SELECT name, grants, create_time_ns, expire_time_ns FROM tokens ORDER BY name");
    if (!select.ok()) {
      return select.status();
    }
    std::vector<TokenInfo> tokens;
    while (true) {
      Result<bool> row = select->Step();
      if (!row.ok()) {
        return row.status();
      }
      if (!*row) {
        return tokens;
      }
      Result<TokenInfo> token = RowOf(*select);
      if (!token.ok()) {
        return token.status();
      }
      tokens.push_back(*std::move(token));
    }
  }

  Status Revoke(std::string_view name) override {
    std::lock_guard lock(mu_);
    Result<Statement> remove = db_->Prepare("DELETE FROM tokens WHERE name = ?1");
    if (!remove.ok()) {
      return remove.status();
    }
    remove->Bind(1, name);
    TY_RETURN_IF_ERROR(remove->Run());
    if (db_->Changes() == 0) {
      return Status::NotFound("there is no token named " + std::string(name));
    }
    return Status();
  }

  Result<TokenInfo> Find(std::string_view secret) const override {
    const std::string digest = Sha256Hex(secret);
    std::lock_guard lock(mu_);
    Result<Statement> select = db_->Prepare(
        "SELECT name, grants, create_time_ns, expire_time_ns FROM tokens WHERE sha256 = ?1");
    if (!select.ok()) {
      return select.status();
    }
    select->Bind(1, digest);
    Result<bool> row = select->Step();
    if (!row.ok()) {
      return row.status();
    }
    if (!*row) {
      return Status::NotFound("no such token");
    }
    return RowOf(*select);
  }

 private:
  // Columns: name, grants, create_time_ns, expire_time_ns.
  static Result<TokenInfo> RowOf(const Statement& row) {
    TokenInfo info{.name = row.ColumnText(0), .create_time = FromNanos(row.ColumnInt64(2))};
    Result<std::vector<access::Grant>> grants = DecodeGrants(info.name, row.ColumnText(1));
    if (!grants.ok()) {
      return grants.status();
    }
    info.grants = *std::move(grants);
    if (row.IsNull(3)) {
      return info;
    }
    info.expire_time = FromNanos(row.ColumnInt64(3));
    return info;
  }

  mutable std::mutex mu_;
  std::unique_ptr<Connection> db_;  // guarded by mu_
};

}  // namespace

Result<std::unique_ptr<TokenStore>> OpenTokenStore(const std::string& path) {
  // Created readable by its owner only, before SQLite opens it (its -wal and -shm files take
  // the database file's mode).
  if (Result<os::File> created = os::File::Open(path, os::OpenMode::kReadAppend, 0600);
      !created.ok()) {
    return Status::FailedPrecondition("the token store: " + created.status().message());
  }
  Result<std::unique_ptr<Connection>> db = Connection::Open(path, /*read_only=*/false);
  if (!db.ok()) {
    return db.status();
  }
  TY_RETURN_IF_ERROR(internal::EnableWal(**db, path));
  TY_RETURN_IF_ERROR(internal::ApplyMigrations(**db, kTokenMigrations));
  return std::unique_ptr<TokenStore>(std::make_unique<SqliteTokenStore>(*std::move(db)));
}

std::string TokenStorePath(std::string_view data_dir) {
  std::string path(data_dir);
  if (!path.empty() && path.back() != '/') {
    path += '/';
  }
  return path + "tokens.db";
}

}  // namespace trainyard::store
