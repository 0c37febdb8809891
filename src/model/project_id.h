// The syntax of a project id, checked before a project names a file or a store row, so that
// hostile segments ("../x", NUL, "/", very long) never reach storage or the file system. Here, in
// model/, because every layer that takes a project from a request checks it: control/'s resource
// names and logs/'s entries:list query. Pure and thread-safe.
#pragma once

#include <string_view>

namespace trainyard::model {

// A project id or number: 1-100 characters, a letter or digit first, then letters, digits and
// `-`, `_`, `.`, `:` (domain-scoped ids look like "example.com:proj"). A superset of Google's
// rules, so every real project id works.
bool IsValidProjectId(std::string_view project);

}  // namespace trainyard::model
