// Lexical rules on absolute paths, shared by the submit-time check of local packages
// (validate/local_packages.h) and the stager's check of their real paths. Pure.
#pragma once

#include <string_view>

namespace trainyard {

// An absolute path with no ".", ".." or empty segment ("/a//b", "/a/"): what it names does not
// depend on how its segments are resolved.
bool IsNormalisedAbsolutePath(std::string_view path);

// Whether the normalised absolute `path` lies strictly below the directory `dir`
// ("/srv/pkgs" holds "/srv/pkgs/a.tar.gz", not "/srv/pkgs2/a" nor "/srv/pkgs" itself).
bool IsBelowDirectory(std::string_view path, std::string_view dir);

}  // namespace trainyard
