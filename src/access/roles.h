// trainyard's roles and the permissions each holds (issue #17), as data: `access/data/roles.json`
// names every permission (Google's IAM names: `ml.jobs.create`, `storage.objects.get`, …) and
// what viewer, editor and admin hold. Pure and thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace trainyard::access {

enum class Role { kViewer, kEditor, kAdmin };

// "viewer", "editor", "admin".
std::string_view RoleName(Role role);
// The role named `name` (as `RoleName` writes it); nullopt otherwise.
std::optional<Role> ParseRole(std::string_view name);
// Every role, weakest first.
std::span<const Role> AllRoles();

// Whether `role` holds `permission` (false for a permission the table does not name).
bool RoleHolds(Role role, std::string_view permission);
// Whether `role` holds in every project, and for what spans projects (admin).
bool RoleSpansProjects(Role role);

// Whether the table names `permission`; the server checks each route's at start.
bool IsKnownPermission(std::string_view permission);
// Every permission the table names, in its order.
std::span<const std::string> AllPermissions();

}  // namespace trainyard::access
