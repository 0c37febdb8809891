// Reading one string member of a JSON object text without building the document (the audit
// trail names a created job or bucket from a request or answer body this way).
#pragma once

#include <string>
#include <string_view>

namespace trainyard::server {

// The string member `member` of the JSON object `text` (the last one, as in a parsed document);
// empty when there is none, it is not a string, or `text` is not a JSON object.
std::string JsonMember(std::string_view text, std::string_view member);

}  // namespace trainyard::server
