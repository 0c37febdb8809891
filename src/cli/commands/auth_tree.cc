#include "cli/commands/auth_tree.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "access/principal.h"
#include "base/time_format.h"
#include "cli/commands/commands.h"
#include "cli/output/error_output.h"
#include "cli/output/table.h"
#include "os/file.h"
#include "os/unique_fd.h"
#include "store/token_store.h"

namespace trainyard::cli {
namespace {

constexpr const char* kDataDirHelp =
    "The server's data directory (default $TRAINYARD_HOME, else ~/.local/share/trainyard).";

std::string Expiry(const store::TokenInfo& token, WallTime now) {
  if (!token.expire_time) {
    return "never";
  }
  return FormatTimestamp(*token.expire_time) + (*token.expire_time <= now ? " (expired)" : "");
}

}  // namespace

struct AuthTree::Flags {
  std::string data_dir;

  CLI::App* create = nullptr;
  std::string create_name;
  std::string role;
  std::vector<std::string> projects;
  std::optional<std::string> expires;
  std::string output;  // --output: the file the secret goes to, instead of stdout

  CLI::App* list = nullptr;
  std::string format = "table";

  CLI::App* revoke = nullptr;
  std::string revoke_name;
};

AuthTree::AuthTree(CLI::App& app, std::string default_data_dir)
    : flags_(std::make_unique<Flags>()) {
  Flags& f = *flags_;
  f.data_dir = std::move(default_data_dir);
  CLI::App* auth = app.add_subcommand("auth", "Manage the server's access tokens.");
  auth->require_subcommand(1);

  f.create = auth->add_subcommand("create-token",
                                  "Create a token and print it once; it is stored only as a hash.");
  f.create->add_option("NAME", f.create_name, "The token's name (a person or a robot).")
      ->required();
  f.create
      ->add_option("--role", f.role,
                   "viewer (read jobs, logs, objects), editor (also submit, cancel, update, "
                   "write objects) or admin (everything, every project).")
      ->required()
      ->check(CLI::IsMember({"viewer", "editor", "admin"}));
  AddRepeatedFlag(*f.create, "--project", f.projects,
                  "A project the role holds in (repeatable; not for admin).");
  AddValueFlag(*f.create, "--expires", f.expires,
               "When the token stops working: a duration (90d, 12h, 30m) or an RFC 3339 time "
               "(default: never).");
  f.create->add_option("--output", f.output,
                       "Write the token to this new file (mode 0600, no newline: what "
                       "--token-file, gcloud and Kubernetes clients read) instead of printing it.");
  f.create->add_option("--data-dir", f.data_dir, kDataDirHelp);

  f.list = auth->add_subcommand("list", "List the tokens (names, roles, expiry; never secrets).");
  f.list->add_option("--format", f.format, "table (default) or json.")
      ->check(CLI::IsMember({"table", "json"}));
  f.list->add_option("--data-dir", f.data_dir, kDataDirHelp);

  f.revoke = auth->add_subcommand("revoke", "Revoke a token: it stops working at once.");
  f.revoke->add_option("NAME", f.revoke_name, "The token's name.")->required();
  f.revoke->add_option("--data-dir", f.data_dir, kDataDirHelp);
}

AuthTree::~AuthTree() = default;

std::optional<int> AuthTree::Run(const Clock& clock, std::ostream& out, std::ostream& err) {
  const Flags& f = *flags_;
  const char* command = f.create->parsed()   ? "trainyard.auth.create-token"
                        : f.list->parsed()   ? "trainyard.auth.list"
                        : f.revoke->parsed() ? "trainyard.auth.revoke"
                                             : nullptr;
  if (command == nullptr) {
    return std::nullopt;
  }
  const auto fail = [&](const Status& status) {
    PrintError(err, command,
               status.violations().empty() ? status.message() : status.violations()[0].description);
    return 1;
  };
  // Checked before the store is opened, so a bad command line creates nothing.
  const WallTime now = clock.Now();
  store::TokenInfo info{.name = f.create_name, .create_time = now};
  if (f.create->parsed()) {
    if (auto bad = access::CheckTokenName(f.create_name, "NAME")) {
      return fail(Status::InvalidArgument({*bad}));
    }
    Result<std::vector<access::Grant>> grants =
        access::GrantsFor(*access::ParseRole(f.role), f.projects);
    if (!grants.ok()) {
      return fail(grants.status());
    }
    info.grants = *std::move(grants);
    if (f.expires) {
      Result<WallTime> expires = access::ParseExpiry(*f.expires, now);
      if (!expires.ok()) {
        return fail(expires.status());
      }
      info.expire_time = *expires;
    }
  }
  // The output file is made (and must be new) before the token, so a token is never created
  // that nobody can read; it goes again if the token cannot be created.
  os::UniqueFd output;
  if (f.create->parsed() && !f.output.empty()) {
    int error = 0;
    Result<os::UniqueFd> created = os::CreateNewFile(f.output, 0600, &error);
    if (!created.ok()) {
      return fail(Status::FailedPrecondition(fmt::format(
          "--output {}: cannot create it ({}); it must be a new file", f.output, Errno(error))));
    }
    output = std::move(*created);
  }
  const auto drop_output = [&] {
    if (output.get() >= 0) {
      std::error_code ignored;
      std::filesystem::remove(f.output, ignored);
    }
  };
  if (f.create->parsed()) {  // tokens may be made before the server first ran
    std::error_code ec;
    std::filesystem::create_directories(f.data_dir, ec);
    if (ec) {
      drop_output();
      return fail(Status::FailedPrecondition("cannot create the data directory " + f.data_dir +
                                             ": " + ec.message()));
    }
  }
  Result<std::unique_ptr<store::TokenStore>> tokens =
      store::OpenTokenStore(store::TokenStorePath(f.data_dir));
  if (!tokens.ok()) {
    drop_output();
    return fail(tokens.status());
  }
  if (f.create->parsed()) {
    Result<std::string> secret = (*tokens)->Create(info);
    if (!secret.ok()) {
      drop_output();
      return fail(secret.status());
    }
    if (output.get() < 0) {
      out << *secret << "\n";
    } else if (const int written = os::WriteFully(output.get(), *secret); written != 0) {
      drop_output();
      // Nobody holds the secret, so the token must not stay valid.
      const Status revoked = (*tokens)->Revoke(info.name);
      return fail(Status::Unavailable(fmt::format(
          "--output {}: cannot write it ({}); the token [{}] {}", f.output,
          std::strerror(written),  // NOLINT(concurrency-mt-unsafe): one thread here
          info.name, revoked.ok() ? "was revoked" : "could not be revoked: " + revoked.message())));
    }
    const std::string kept =
        output.get() < 0 ? "It is shown only now: keep it in a file only you can read"
                         : fmt::format("It is in {} (mode 0600) and nowhere else", f.output);
    err << fmt::format(
        "Created token [{}]: {}; expires {}. {} (gcloud config set auth/access_token_file FILE, "
        "or trainyard --token-file FILE).\n",
        info.name, access::DescribeGrants(info.grants), Expiry(info, now), kept);
    return 0;
  }
  if (f.revoke->parsed()) {
    const Status revoked = (*tokens)->Revoke(f.revoke_name);
    if (!revoked.ok()) {
      return fail(revoked);
    }
    err << fmt::format("Revoked token [{}].\n", f.revoke_name);
    return 0;
  }
  Result<std::vector<store::TokenInfo>> list = (*tokens)->List();
  if (!list.ok()) {
    return fail(list.status());
  }
  if (f.format == "json") {
    nlohmann::json items = nlohmann::json::array();
    for (const store::TokenInfo& token : *list) {
      nlohmann::json grants = nlohmann::json::array();
      for (const access::Grant& grant : token.grants) {
        grants.push_back({{"role", access::RoleName(grant.role)}, {"project", grant.project}});
      }
      nlohmann::json item = {{"name", token.name},
                             {"grants", std::move(grants)},
                             {"createTime", FormatTimestamp(token.create_time)}};
      if (token.expire_time) {
        item["expireTime"] = FormatTimestamp(*token.expire_time);
      }
      items.push_back(std::move(item));
    }
    out << items.dump(2) << "\n";
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const store::TokenInfo& token : *list) {
    rows.push_back({token.name, access::DescribeGrants(token.grants),
                    FormatTimestamp(token.create_time), Expiry(token, now)});
  }
  if (rows.empty()) {
    err << "Listed 0 items.\n";
    return 0;
  }
  out << FormatTable({"NAME", "ROLES", "CREATED", "EXPIRES"}, rows);
  return 0;
}

}  // namespace trainyard::cli
