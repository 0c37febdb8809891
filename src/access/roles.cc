#include "access/roles.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/check.h"
#include "base/embedded.h"

namespace trainyard::access::data {
base::EmbeddedFiles Embedded();
}  // namespace trainyard::access::data

namespace trainyard::access {
namespace {

constexpr std::array kRoles = {Role::kViewer, Role::kEditor, Role::kAdmin};

struct RoleEntry {
  std::set<std::string, std::less<>> permissions;  // its own and those of the role it extends
  bool spans_projects = false;
};

struct Table {
  std::vector<std::string> permissions;
  std::array<RoleEntry, kRoles.size()> roles;
};

std::string_view RolesJson() {
  return data::Embedded().Get("roles.json");
}

// The table is code's data: a malformed one is a build defect, so it aborts.
Table Load() {
  const nlohmann::ordered_json document = nlohmann::ordered_json::parse(RolesJson());
  Table table;
  for (const auto& [name, description] : document.at("permissions").items()) {
    table.permissions.push_back(name);
  }
  const auto known = [&](const std::string& permission) {
    return std::ranges::find(table.permissions, permission) != table.permissions.end();
  };
  for (const Role role : kRoles) {  // weakest first, so an extended role is loaded already
    const nlohmann::ordered_json& entry = document.at("roles").at(std::string(RoleName(role)));
    RoleEntry& loaded = table.roles[static_cast<std::size_t>(role)];
    if (entry.contains("extends")) {
      const std::optional<Role> base = ParseRole(entry.at("extends").get<std::string>());
      TY_CHECK(base.has_value() && *base < role) << "roles.json: bad extends";
      loaded.permissions = table.roles[static_cast<std::size_t>(*base)].permissions;
    }
    for (const auto& permission : entry.at("permissions")) {
      TY_CHECK(known(permission.get<std::string>())) << "roles.json: unknown " << permission;
      loaded.permissions.insert(permission.get<std::string>());
    }
    loaded.spans_projects = entry.value("all_projects", false);
  }
  return table;
}

const Table& TheTable() {
  static const Table table = Load();
  return table;
}

}  // namespace

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kViewer:
      return "viewer";
    case Role::kEditor:
      return "editor";
    case Role::kAdmin:
      return "admin";
  }
  return "viewer";
}

std::optional<Role> ParseRole(std::string_view name) {
  for (const Role role : kRoles) {
    if (RoleName(role) == name) {
      return role;
    }
  }
  return std::nullopt;
}

std::span<const Role> AllRoles() {
  return kRoles;
}

bool RoleHolds(Role role, std::string_view permission) {
  return TheTable().roles[static_cast<std::size_t>(role)].permissions.contains(permission);
}

bool RoleSpansProjects(Role role) {
  return TheTable().roles[static_cast<std::size_t>(role)].spans_projects;
}

bool IsKnownPermission(std::string_view permission) {
  return std::ranges::find(TheTable().permissions, permission) != TheTable().permissions.end();
}

std::span<const std::string> AllPermissions() {
  return TheTable().permissions;
}

}  // namespace trainyard::access
