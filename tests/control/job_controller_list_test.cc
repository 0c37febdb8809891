#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "control/job_controller.h"
#include "control/test_jobs.h"

namespace trainyard::control::testing {
namespace {

using model::JobState;

class ListTest : public ControllerTest {
 protected:
  // Submits job_0000 … job_<n-1>, each a millisecond after the last, labelled by parity.
  std::vector<std::string> SubmitMany(int n) {
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) {
      char id[16];
      std::snprintf(id, sizeof(id), "job_%04d", i);
      model::Job job = ValidRuntimeJob(id);
      job.labels = {{"parity", i % 2 == 0 ? "even" : "odd"}};
      EXPECT_TRUE(controller_->Submit("proj", job).ok());
      clock_.Advance(std::chrono::milliseconds(1));
      ids.push_back(id);
    }
    return {ids.rbegin(), ids.rend()};  // newest first
  }

  // Follows nextPageToken to the end, recording each page's size.
  std::vector<std::string> ListAll(ListJobsRequest request, std::vector<std::size_t>* sizes) {
    std::vector<std::string> ids;
    do {
      Result<ListJobsResponse> page = controller_->List("proj", request);
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) {
        break;
      }
      for (const std::string& id : JobIds(page->jobs)) {
        ids.push_back(id);
      }
      sizes->push_back(page->jobs.size());
      request.page_token = page->next_page_token;
    } while (!request.page_token.empty());
    return ids;
  }
};

TEST_F(ListTest, PagesOfAHundredReturnEveryJobOnceNewestFirst) {
  const std::vector<std::string> expected = SubmitMany(250);
  std::vector<std::size_t> sizes;

  EXPECT_EQ(ListAll({.page_size = 100}, &sizes), expected);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{100, 100, 50}));
}

TEST_F(ListTest, JobsCreatedBetweenPagesNeitherRepeatNorHideOthers) {
  const std::vector<std::string> expected = SubmitMany(250);
  Result<ListJobsResponse> first = controller_->List("proj", {.page_size = 100});
  ASSERT_TRUE(first.ok());
  std::vector<std::string> seen = JobIds(first->jobs);
  std::string token = first->next_page_token;
  int extra = 0;
  while (!token.empty()) {
    SubmitValid("late_" + std::to_string(extra++));  // newer than everything listed
    Result<ListJobsResponse> page =
        controller_->List("proj", {.page_size = 100, .page_token = token});
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    for (const std::string& id : JobIds(page->jobs)) {
      seen.push_back(id);
    }
    token = page->next_page_token;
  }
  EXPECT_EQ(seen, expected);
}

TEST_F(ListTest, TiesInCreateTimeAreOrderedByJobIdAcrossPages) {
  for (const std::string id : {"tie_d", "tie_b", "tie_a", "tie_c", "tie_e"}) {
    ASSERT_TRUE(controller_->Submit("proj", ValidRuntimeJob(id)).ok());  // the clock stands still
  }
  std::vector<std::size_t> sizes;
  EXPECT_EQ(ListAll({.page_size = 2}, &sizes),
            (std::vector<std::string>{"tie_a", "tie_b", "tie_c", "tie_d", "tie_e"}));
}

TEST_F(ListTest, PageSizeDefaultsToTwentyAndIsClampedToAHundred) {
  SubmitMany(150);
  EXPECT_EQ(controller_->List("proj", {})->jobs.size(), 20U);
  EXPECT_EQ(controller_->List("proj", {.page_size = 1000})->jobs.size(), 100U);
  EXPECT_EQ(controller_->List("proj", {.page_size = -1}).status().code(), Code::kInvalidArgument);
}

TEST_F(ListTest, AnExactlyFullLastPageHasNoToken) {
  SubmitMany(100);
  Result<ListJobsResponse> page = controller_->List("proj", {.page_size = 100});
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->jobs.size(), 100U);
  EXPECT_EQ(page->next_page_token, "");
}

TEST_F(ListTest, AnEmptyProjectHasNoJobsAndNoToken) {
  SubmitMany(3);
  Result<ListJobsResponse> page = controller_->List("other", {.page_size = 100});
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->jobs.empty());
  EXPECT_EQ(page->next_page_token, "");
}

TEST_F(ListTest, AMalformedPageTokenIsInvalidArgument) {
  SubmitMany(3);
  for (const std::string token : {"garbage!", "AQ", "%2F..%2F"}) {
    const Status status = controller_->List("proj", {.page_token = token}).status();
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << token;
    ASSERT_EQ(status.violations().size(), 1U);
    EXPECT_EQ(status.violations()[0].field, "pageToken");
  }
}

TEST_F(ListTest, AFilterAppliesAcrossStorePagesAndKeepsPaging) {
  const std::vector<std::string> all = SubmitMany(250);
  std::vector<std::string> even;
  for (const std::string& id : all) {
    if ((id.back() - '0') % 2 == 0) {
      even.push_back(id);
    }
  }
  std::vector<std::size_t> sizes;

  EXPECT_EQ(ListAll({.page_size = 100, .filter = "labels.parity=even"}, &sizes), even);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{100, 25}));
}

TEST_F(ListTest, AFilterThatMatchesLittleAnswersWithinABoundedScan) {
  SubmitValid("needle", {{"kind", "needle"}});
  SubmitMany(2'100);  // more than one request examines

  Result<ListJobsResponse> first =
      controller_->List("proj", {.page_size = 10, .filter = "labels.kind=needle"});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->jobs.empty());
  ASSERT_NE(first->next_page_token, "");
  Result<ListJobsResponse> second = controller_->List(
      "proj",
      {.page_size = 10, .page_token = first->next_page_token, .filter = "labels.kind=needle"});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(JobIds(second->jobs), std::vector<std::string>{"needle"});
  EXPECT_EQ(second->next_page_token, "");
}

TEST_F(ListTest, FiltersSelectByStateAndJobId) {
  SubmitValid("census_1");
  SubmitValid("census_2");
  SubmitValid("rnn_1");
  ASSERT_TRUE(controller_->Cancel("proj", "census_2").ok());

  auto ids = [&](const std::string& filter) {
    Result<ListJobsResponse> page = controller_->List("proj", {.filter = filter});
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    return page.ok() ? JobIds(page->jobs) : std::vector<std::string>{};
  };
  EXPECT_EQ(ids("jobId:census*"), (std::vector<std::string>{"census_2", "census_1"}));
  EXPECT_EQ(ids("jobId:census* AND state:CANCELLED"), std::vector<std::string>{"census_2"});
  EXPECT_EQ(ids("NOT state=CANCELLED"), (std::vector<std::string>{"rnn_1", "census_1"}));
  EXPECT_EQ(ids("endTime:*"), std::vector<std::string>{"census_2"});
}

TEST_F(ListTest, AMalformedFilterIsInvalidArgumentOnFilter) {
  const Status status = controller_->List("proj", {.filter = "state=FAILED AND"}).status();
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  ASSERT_EQ(status.violations().size(), 1U);
  EXPECT_EQ(status.violations()[0].field, "filter");
}

}  // namespace
}  // namespace trainyard::control::testing
