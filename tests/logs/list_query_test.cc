// entries:list's projects, page sizes, orders and page tokens (logs/list_query.h): the projects a
// request names or its filter's, each once, a page size within Cloud Logging's range, and a token
// that comes back as the cursor it was made from, only with the query it was issued for, and an
// edited or cut one is refused.
#include "logs/list_query.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::logs {
namespace {

constexpr std::string_view kMalformed = "The project id is malformed.";
constexpr std::string_view kNotAProjectName =
    "Only \"projects/<PROJECT_ID>\" resource names are supported here.";

TEST(AddProjectTest, AddsEachNamedProjectOnceOrNamesTheBadMember) {
  const struct {
    std::string_view name;
    std::vector<std::string_view> names;  // read in turn, as resourceNames[0], [1], …
    ProjectNaming naming;
    std::vector<std::string> projects;
    std::vector<FieldViolation> violations;
  } cases[] = {
      {"OneResourceName", {"projects/p"}, ProjectNaming::kResourceName, {"p"}, {}},
      {"InTheOrderNamed",
       {"projects/q", "projects/p"},
       ProjectNaming::kResourceName,
       {"q", "p"},
       {}},
      {"RepeatsOnce",
       {"projects/p", "projects/q", "projects/p"},
       ProjectNaming::kResourceName,
       {"p", "q"},
       {}},
      {"ServerWide", {"projects/-"}, ProjectNaming::kResourceName, {"-"}, {}},
      {"DomainScoped",
       {"projects/example.com:p"},
       ProjectNaming::kResourceName,
       {"example.com:p"},
       {}},
      {"ProjectId", {"p"}, ProjectNaming::kProjectId, {"p"}, {}},
      {"ProjectIdServerWide", {"-"}, ProjectNaming::kProjectId, {"-"}, {}},
      {"NotAProjectName",
       {"organizations/o"},
       ProjectNaming::kResourceName,
       {},
       {{"f[0]", std::string(kNotAProjectName)}}},
      {"BareIdAsResourceName",
       {"p"},
       ProjectNaming::kResourceName,
       {},
       {{"f[0]", std::string(kNotAProjectName)}}},
      {"PrefixedProjectId",
       {"projects/p"},
       ProjectNaming::kProjectId,
       {},
       {{"f[0]", std::string(kMalformed)}}},
      {"Traversal",
       {"projects/../x"},
       ProjectNaming::kResourceName,
       {},
       {{"f[0]", std::string(kMalformed)}}},
      {"Empty",
       {"projects/"},
       ProjectNaming::kResourceName,
       {},
       {{"f[0]", std::string(kMalformed)}}},
      {"Nested",
       {"projects/p/logs/x"},
       ProjectNaming::kResourceName,
       {},
       {{"f[0]", std::string(kMalformed)}}},
      {"GoodAndBad",
       {"projects/p", "projects/a b"},
       ProjectNaming::kResourceName,
       {"p"},
       {{"f[1]", std::string(kMalformed)}}},
  };
  for (const auto& c : cases) {
    std::vector<std::string> projects;
    std::vector<FieldViolation> violations;
    for (std::size_t i = 0; i < c.names.size(); ++i) {
      AddProject(c.names[i], c.naming, "f[" + std::to_string(i) + "]", violations, projects);
    }
    EXPECT_EQ(projects, c.projects) << c.name;
    EXPECT_EQ(violations, c.violations) << c.name;
  }
}

TEST(ResolveProjectsTest, TheNamedProjectsElseTheFiltersProject) {
  const std::string name_one =
      "Name the project to read: resourceNames [\"projects/<PROJECT_ID>\"], or a filter with "
      "resource.labels.project_id=\"<PROJECT_ID>\".";
  const struct {
    std::string_view name;
    std::vector<std::string> named;
    std::optional<std::string> filter_project;
    std::optional<std::vector<std::string>> expected;  // nullopt: refused
  } cases[] = {
      {"Named", {"p", "q"}, std::nullopt, std::vector<std::string>{"p", "q"}},
      {"NamedWinsOverTheFilter", {"p"}, "q", std::vector<std::string>{"p"}},
      {"TheFilters", {}, "q", std::vector<std::string>{"q"}},
      {"TheFiltersServerWide", {}, "-", std::vector<std::string>{"-"}},
      {"None", {}, std::nullopt, std::nullopt},
      {"MalformedFilterProject", {}, "../x", std::nullopt},
      {"EmptyFilterProject", {}, "", std::nullopt},
  };
  for (const auto& c : cases) {
    LogFilter::Scope scope;
    scope.project = c.filter_project;
    const Result<std::vector<std::string>> projects = ResolveProjects(c.named, scope);
    if (c.expected.has_value()) {
      ASSERT_TRUE(projects.ok()) << c.name << ": " << projects.status().message();
      EXPECT_EQ(*projects, *c.expected) << c.name;
      continue;
    }
    ASSERT_FALSE(projects.ok()) << c.name;
    EXPECT_EQ(projects.status().code(), Code::kInvalidArgument) << c.name;
    const std::vector<FieldViolation> violations(projects.status().violations().begin(),
                                                 projects.status().violations().end());
    const std::vector<FieldViolation> expected = {{"resourceNames", name_one}};
    EXPECT_EQ(violations, expected) << c.name;
  }
}

TEST(PageSizeTest, ZeroIsTheDefaultAndOutOfRangeIsRefused) {
  const struct {
    std::int64_t requested;
    std::optional<int> expected;
  } cases[] = {
      {0, 50},
      {1, 1},
      {50, 50},
      {999, 999},
      {1000, 1000},
      {1001, std::nullopt},
      {-1, std::nullopt},
      {std::numeric_limits<std::int64_t>::min(), std::nullopt},
      {std::numeric_limits<std::int64_t>::max(), std::nullopt},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(PageSizeFor(c.requested), c.expected) << c.requested;
  }
  EXPECT_EQ(PageSizeExpectation(), "expected an integer from 0 to 1000 (0 means 50)");
}

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
