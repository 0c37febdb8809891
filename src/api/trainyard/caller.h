// trainyard v1's `GET /trainyard/v1/caller`: who the request's token stands for, the projects
// it holds a role in, and the projects the web console's picker offers it:
//   {"name": "alice", "grants": [{"role": "editor", "project": "ml-team",
//    "permissions": ["ml.jobs.get", …]}], "allProjects": false, "projects": ["ml-team"]}
// Each grant's permissions are its role's (access/data/roles.json), so the console offers only
// what the caller may do (a job's Suspend and Resume need ml.jobs.suspend).
// A role that spans projects (admin), or a server that checks no tokens, answers
// "allProjects": true (the console then also lets the user name any project), and its
// "projects" are those that hold jobs or buckets, plus "default" (the rule is
// access/visible_projects.h's). The route needs a valid token
// with `ml.jobs.list` in some project (api/access_check.h, ProjectFrom::kAnyProject).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "access/principal.h"
#include "base/status.h"
#include "server/http_message.h"
#include "server/router.h"

namespace trainyard::server {

// The caller of an authenticated request; nullopt when the server checks no tokens.
using CallerLookup = std::function<std::optional<access::Principal>(const HttpRequest&)>;

// The projects that hold jobs or buckets, read only for a caller who may see every project.
using HeldProjects = std::function<Result<std::vector<std::string>>()>;

void AddTrainyardV1CallerRoute(Router& router, CallerLookup caller, HeldProjects held);

}  // namespace trainyard::server
