// The rules of logging v2's `entries:list` query beside its filter (logs/log_filter.h): the
// orders it accepts, and its page tokens. A page token is opaque to clients: the hex of the
// query's fingerprint (8 bytes: its filter, order and projects), the last entry's timestamp
// (27 bytes) and insertId, then a checksum of all that (8 bytes). The checksum catches a token
// that was edited or cut; the fingerprint one sent with a different query. A forged token could
// only move a caller within results it may read anyway. Pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "logs/log_entry.h"
#include "logs/log_reader.h"

namespace trainyard::logs {

// `orderBy`: "timestamp asc" and "timestamp desc", in any case and spacing; "timestamp" alone
// and "" ascend. nullopt for any other order.
std::optional<Order> ParseOrderBy(std::string_view text);

// What a page token is tied to: the next page must be asked for with the same query.
struct ListQuery {
  std::string filter;
  Order order = Order::kAscending;
  std::vector<std::string> projects;  // in the order the request names them
};

// The token of the page after `last`.
std::string EncodePageToken(const ListQuery& query, const LogEntry& last);

// Where the page `token` asks for starts; INVALID_ARGUMENT on "pageToken" when the token is
// malformed or altered, or was issued for a different query.
Result<Cursor> DecodePageToken(std::string_view token, const ListQuery& query);

}  // namespace trainyard::logs
