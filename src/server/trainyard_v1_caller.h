// trainyard v1's `GET /trainyard/v1/caller`: who the request's token stands for and the projects
// it holds a role in, so the web console offers only the projects the caller may see:
//   {"name": "alice", "grants": [{"role": "editor", "project": "ml-team"}], "allProjects": false}
// A role that spans projects (admin), or a server that checks no tokens, answers
// "allProjects": true (the console then lets the user name any project). The route needs a valid
// token with `ml.jobs.list` in some project (server/access_check.h, ProjectFrom::kAnyProject).
#pragma once

#include <functional>
#include <optional>

#include "access/principal.h"
#include "server/http_message.h"
#include "server/router.h"

namespace trainyard::server {

// The caller of an authenticated request; nullopt when the server checks no tokens.
using CallerLookup = std::function<std::optional<access::Principal>(const HttpRequest&)>;

void AddTrainyardV1CallerRoute(Router& router, CallerLookup caller);

}  // namespace trainyard::server
