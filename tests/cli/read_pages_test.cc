// ReadPages (cli/commands/commands.h): the paging loop every `list` verb shares.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/commands/commands.h"

namespace trainyard::cli {
namespace {

struct Page {
  std::vector<int> jobs;
  std::string next_page_token;
};

// A server whose pages are keyed by the token that asks for them; a token it does not know is an
// error.
struct Server {
  std::map<std::string, Page> pages;
  mutable std::vector<std::string> asked;

  Result<Page> operator()(const std::string& token) const {
    asked.push_back(token);
    const auto it = pages.find(token);
    if (it == pages.end()) {
      return Status::InvalidArgument("bad page token " + token);
    }
    return it->second;
  }
};

const Server kThreePages{.pages = {{"", {{1, 2}, "a"}}, {"a", {{3, 4}, "b"}}, {"b", {{5}, ""}}},
                         .asked = {}};

TEST(ReadPagesTest, ReadsToTheLastPageOrTheLimit) {
  struct Case {
    std::int64_t limit;
    std::vector<int> items;
    std::vector<std::string> asked;
  };
  const std::vector<Case> cases = {
      {100, {1, 2, 3, 4, 5}, {"", "a", "b"}},
      {5, {1, 2, 3, 4, 5}, {"", "a", "b"}},
      {3, {1, 2, 3}, {"", "a"}},  // stops reading once it has enough, then cuts
      {2, {1, 2}, {""}},
      {1, {1}, {""}},
  };
  for (const Case& c : cases) {
    const Server server = kThreePages;
    const Result<std::vector<int>> items = ReadPages<int>(c.limit, server);
    ASSERT_TRUE(items.ok()) << items.status().ToString();
    EXPECT_EQ(*items, c.items) << c.limit;
    EXPECT_EQ(server.asked, c.asked) << c.limit;
  }
}

TEST(ReadPagesTest, AServerErrorIsTheResult) {
  Server server = kThreePages;
  server.pages.erase("b");
  const Result<std::vector<int>> items = ReadPages<int>(100, server);
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.status().message(), "bad page token b");
}

TEST(ReadPagesTest, TheSameTokenTwiceIsInternalNotALoop) {
  const Server server{.pages = {{"", {{1}, "a"}}, {"a", {{2}, "a"}}}, .asked = {}};
  const Result<std::vector<int>> items = ReadPages<int>(100, server);
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.status().code(), Code::kInternal);
  EXPECT_EQ(server.asked, (std::vector<std::string>{"", "a"}));
}

}  // namespace
}  // namespace trainyard::cli
