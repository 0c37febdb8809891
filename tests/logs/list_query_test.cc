// entries:list's orders and page tokens (logs/list_query.h): a token comes back as the cursor it
// was made from, only with the query it was issued for, and an edited or cut one is refused.
#include "logs/list_query.h"

#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace trainyard::logs {
namespace {

TEST(ParseOrderByTest, TimestampAscendingOrDescendingOnly) {
  const struct {
    std::string_view text;
    std::optional<Order> expected;
  } cases[] = {
      {"", Order::kAscending},
      {"   ", Order::kAscending},
      {"timestamp", Order::kAscending},
      {"timestamp asc", Order::kAscending},
      {"TIMESTAMP  Desc", Order::kDescending},
      {"\ttimestamp\tdesc ", Order::kDescending},
      {"timestamp sideways", std::nullopt},
      {"severity desc", std::nullopt},
      {"timestamp desc extra", std::nullopt},
      {"desc", std::nullopt},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ParseOrderBy(c.text), c.expected) << '"' << c.text << '"';
  }
}

LogEntry Last() {
  LogEntry entry;
  entry.timestamp = "2026-11-29T12:00:00.000001Z";
  entry.insert_id = "0000000001-0002";
  return entry;
}

const ListQuery kQuery{
    .filter = R"(resource.labels.job_id="j")", .order = Order::kDescending, .projects = {"p", "q"}};

TEST(PageTokenTest, ComesBackAsTheCursorOfTheLastEntry) {
  const Result<Cursor> cursor = DecodePageToken(EncodePageToken(kQuery, Last()), kQuery);
  ASSERT_TRUE(cursor.ok()) << cursor.status().message();
  EXPECT_EQ(cursor->timestamp, Last().timestamp);
  EXPECT_EQ(cursor->insert_id, Last().insert_id);
}

TEST(PageTokenTest, RefusesATokenOfAnotherQuery) {
  const std::string token = EncodePageToken(kQuery, Last());
  ListQuery other_filter = kQuery;
  other_filter.filter += " severity>=ERROR";
  ListQuery other_order = kQuery;
  other_order.order = Order::kAscending;
  ListQuery other_projects = kQuery;
  other_projects.projects = {"q", "p"};
  ListQuery fewer_projects = kQuery;
  fewer_projects.projects = {"p"};
  for (const ListQuery& query : {other_filter, other_order, other_projects, fewer_projects}) {
    const Result<Cursor> cursor = DecodePageToken(token, query);
    ASSERT_FALSE(cursor.ok()) << query.filter;
    EXPECT_EQ(cursor.status().code(), Code::kInvalidArgument);
    ASSERT_EQ(cursor.status().violations().size(), 1U);
    EXPECT_EQ(cursor.status().violations()[0].field, "pageToken");
    EXPECT_NE(cursor.status().violations()[0].description.find("different filter"),
              std::string::npos);
  }
}

TEST(PageTokenTest, RefusesAnEditedOrCutToken) {
  const std::string token = EncodePageToken(kQuery, Last());
  std::string flipped = token;
  flipped[token.size() / 2] = flipped[token.size() / 2] == '0' ? '1' : '0';
  const std::string cases[] = {
      "",           "zz",    token.substr(0, token.size() - 2), token.substr(2),
      token + "00", flipped, std::string(token.size(), '0'),
  };
  for (const std::string& bad : cases) {
    const Result<Cursor> cursor = DecodePageToken(bad, kQuery);
    ASSERT_FALSE(cursor.ok()) << bad;
    ASSERT_EQ(cursor.status().violations().size(), 1U);
    EXPECT_EQ(cursor.status().violations()[0].field, "pageToken");
    EXPECT_NE(cursor.status().violations()[0].description.find("malformed or was altered"),
              std::string::npos)
        << bad;
  }
}

}  // namespace
}  // namespace trainyard::logs
