// Request-target parsing: the path's segments and the query's parameters, percent-decoded with
// the checks that keep hostile names out of the rest of the server. Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::server {

struct Target {
  std::string path;  // still percent-encoded: routing matches raw segments
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in request order
};

// Splits an origin-form target ("/a/b?x=1&y") into its path and decoded query parameters ("+" is
// a space there, a parameter without "=" has an empty value). INVALID_ARGUMENT when the target
// does not start with "/" or a query escape is malformed.
Result<Target> ParseTarget(std::string_view target);

// Decodes %XX escapes of one path segment ("+" stays a "+"). INVALID_ARGUMENT for a malformed
// escape, or a result that is empty, "." or "..", or holds a NUL or "/": no path variable can
// name a parent directory or smuggle a separator. `what` names the segment in the message.
Result<std::string> DecodePathSegment(std::string_view segment, std::string_view what);

// Decodes the %XX escapes of the rest of a path ("a/b%2Fc" is "a/b/c"), for a variable that may
// hold slashes, such as a GCS object name. INVALID_ARGUMENT for a malformed escape, a NUL or an
// empty result; what the value names (and whether ".." is allowed) is the handler's to check.
Result<std::string> DecodePathRest(std::string_view rest, std::string_view what);

}  // namespace trainyard::server
