#include "vertex/spec_document.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

namespace trainyard::vertex {

using nlohmann::ordered_json;

std::string SpecDocument(std::string_view body, std::span<const std::string_view> members,
                         bool unwrap) {
  // Only the kept members are built: an order-keeping document finds each key of an object by a
  // linear search, so building the whole body costs time quadratic in the members it does not
  // keep (100,000 labels: 20 s, issue #31). The parser's callback discards every other top-level
  // member, and what a discarded member holds is never inserted anywhere.
  const auto keep = [members](int depth, ordered_json::parse_event_t event, ordered_json& parsed) {
    return depth != 1 || event != ordered_json::parse_event_t::key ||
           std::ranges::find(members, parsed.get_ref<const std::string&>()) != members.end();
  };
  const ordered_json value = ordered_json::parse(body, keep, /*allow_exceptions=*/false);
  ordered_json document = ordered_json::object();
  for (const std::string_view member : members) {
    const auto it = value.is_object() ? value.find(member) : value.end();
    if (it == value.end() || it->is_null()) {
      continue;
    }
    if (unwrap) {
      document = it->is_object() ? *it : ordered_json::object();
    } else {
      document[std::string(member)] = *it;
    }
  }
  return document.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace trainyard::vertex
