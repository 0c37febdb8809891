// entries:list as one call (logs/entries_list.h): the projects it reads, and pages that continue
// with their token only for the query they came from, over record files in a temporary directory.
#include "logs/entries_list.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "logs/log_reader.h"
#include "logs/log_record.h"

namespace trainyard::logs {
namespace {

// Project "p" with job "job_1", whose master wrote three lines; no audit log.
class OneJobCatalog final : public LogCatalog {
 public:
  explicit OneJobCatalog(const testing::TempDir& dir) : logs_dir_(dir.File("logs")) {
    std::string bytes;
    AppendRecord(bytes, "2026-11-29T12:00:01.000000Z", Stream::kStdout, "one");
    AppendRecord(bytes, "2026-11-29T12:00:02.000000Z", Stream::kStdout, "two");
    AppendRecord(bytes, "2026-11-29T12:00:03.000000Z", Stream::kStdout, "three");
    std::filesystem::create_directories(logs_dir_);
    std::ofstream(logs_dir_ + "/master-replica-0.log", std::ios::binary) << bytes;
    audit_path_ = dir.File("audit.log");
  }
  std::vector<std::string> Jobs(std::string_view project) const override {
    return project == "p" ? std::vector<std::string>{"job_1"} : std::vector<std::string>{};
  }
  std::vector<LogSource> JobSources(std::string_view project,
                                    std::string_view job_id) const override {
    return project == "p" && job_id == "job_1" ? ListSources(logs_dir_, project, job_id)
                                               : std::vector<LogSource>{};
  }
  std::string AuditLogPath(std::string_view /*project*/) const override { return audit_path_; }

 private:
  std::string logs_dir_;
  std::string audit_path_;
};

std::vector<std::string> Texts(const ListPage& page) {
  std::vector<std::string> texts;
  for (const LogEntry& entry : page.entries) {
    texts.push_back(entry.text);
  }
  return texts;
}

constexpr std::string_view kFilterOfP = R"(resource.labels.project_id="p")";

TEST(ListEntriesTest, PagesThroughTheFiltersProjectWithItsToken) {
  const testing::TempDir dir;
  const OneJobCatalog catalog(dir);
  ListRequest request{.query = {.filter = std::string(kFilterOfP)}, .page_size = 2};
  const Result<ListPage> first = ListEntries(request, catalog);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(Texts(*first), (std::vector<std::string>{"one", "two"}));
  ASSERT_FALSE(first->next_page_token.empty());
  request.page_token = first->next_page_token;
  const Result<ListPage> second = ListEntries(request, catalog);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(Texts(*second), std::vector<std::string>{"three"});
  EXPECT_TRUE(second->next_page_token.empty());
  for (const LogEntry& entry : second->entries) {
    EXPECT_EQ(entry.source->job_id, "job_1");  // the page holds what its entries point into
  }
}

TEST(ListEntriesTest, ATokenContinuesOnlyItsOwnQuery) {
  const testing::TempDir dir;
  const OneJobCatalog catalog(dir);
  ListRequest request{.query = {.filter = std::string(kFilterOfP)}, .page_size = 1};
  const Result<ListPage> first = ListEntries(request, catalog);
  ASSERT_TRUE(first.ok()) << first.status().message();
  request.page_token = first->next_page_token;
  request.query.order = Order::kDescending;
  const Result<ListPage> other = ListEntries(request, catalog);
  ASSERT_FALSE(other.ok());
  ASSERT_EQ(other.status().violations().size(), 1U);
  EXPECT_EQ(other.status().violations()[0].field, "pageToken");
}

TEST(ListProjectsTest, TheNamedProjectsElseTheFiltersOrAnError) {
  const struct {
    std::string_view filter;
    std::vector<std::string> named;
    std::vector<std::string> expected;  // empty: refused
  } cases[] = {
      {"", {"p", "q"}, {"p", "q"}},
      {kFilterOfP, {"q"}, {"q"}},
      {kFilterOfP, {}, {"p"}},
      {"", {}, {}},
      {"resource.labels.project_id=", {"p"}, {}},  // a filter that does not parse
  };
  for (const auto& c : cases) {
    const Result<std::vector<std::string>> projects =
        ListProjects(ListRequest{.query = {.filter = std::string(c.filter), .projects = c.named}});
    if (c.expected.empty()) {
      EXPECT_FALSE(projects.ok()) << c.filter;
    } else {
      ASSERT_TRUE(projects.ok()) << c.filter << ": " << projects.status().message();
      EXPECT_EQ(*projects, c.expected) << c.filter;
    }
  }
}

}  // namespace
}  // namespace trainyard::logs
