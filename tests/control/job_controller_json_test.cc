// GetJson and ListJson, the controller's reads as stored ml v1 JSON: the same answers as Get and
// List encoded with model::EncodeJob, after every kind of write, with and without filters.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "control/job_controller.h"
#include "control/test_jobs.h"
#include "model/json_codec.h"

namespace trainyard::control::testing {
namespace {

using model::JobState;

class JsonReadTest : public ControllerTest {
 protected:
  void ExpectGetJsonIsGetEncoded(const std::string& id) {
    Result<model::Job> job = controller_->Get("proj", id);
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    Result<std::string> json = controller_->GetJson("proj", id);
    ASSERT_TRUE(json.ok()) << json.status().ToString();
    EXPECT_EQ(*json, model::EncodeJob(*job));
  }

  // Both reads of every page of `request`, followed to the end, agree; returns the pages seen.
  int ExpectListJsonIsListEncoded(ListJobsRequest request) {
    int pages = 0;
    do {
      Result<ListJobsResponse> page = controller_->List("proj", request);
      Result<ListJobsJsonResponse> json = controller_->ListJson("proj", request);
      EXPECT_TRUE(page.ok() && json.ok());
      if (!page.ok() || !json.ok()) {
        return pages;
      }
      std::vector<std::string> encoded;
      for (const model::Job& job : page->jobs) {
        encoded.push_back(model::EncodeJob(job));
      }
      EXPECT_EQ(json->jobs, encoded);
      EXPECT_EQ(json->next_page_token, page->next_page_token);
      request.page_token = page->next_page_token;
      ++pages;
    } while (!request.page_token.empty());
    return pages;
  }
};

TEST_F(JsonReadTest, GetJsonFollowsEveryKindOfWrite) {
  SubmitValid("job_1", {{"team", "vision"}});
  ExpectGetJsonIsGetEncoded("job_1");

  Result<store::RevisionedJob> running =
      controller_->Mutate("proj", "job_1", [&](const model::Job& current) {
        model::Job next = current;
        next.state = JobState::kRunning;
        next.start_time = clock_.Now();
        return Result<std::optional<model::Job>>(std::optional(std::move(next)));
      });
  ASSERT_TRUE(running.ok()) << running.status().ToString();
  ExpectGetJsonIsGetEncoded("job_1");

  model::Job patch;
  patch.labels = {{"team", "speech"}};
  ASSERT_TRUE(controller_->Patch("proj", "job_1", patch, {"labels"}).ok());
  ExpectGetJsonIsGetEncoded("job_1");

  ASSERT_TRUE(controller_->Cancel("proj", "job_1").ok());  // RUNNING → CANCELLING
  ExpectGetJsonIsGetEncoded("job_1");

  SubmitValid("job_2");
  ASSERT_TRUE(controller_->Cancel("proj", "job_2").ok());  // QUEUED → CANCELLED
  ExpectGetJsonIsGetEncoded("job_2");
  EXPECT_NE(controller_->GetJson("proj", "job_2")->find("\"state\":\"CANCELLED\""),
            std::string::npos);
}

TEST_F(JsonReadTest, SubmitJsonAnswersWithTheStoredJobAndSubmitsErrors) {
  model::Job job = ValidRuntimeJob("job_1");
  job.labels = {{"team", "vision"}};
  Result<std::string> json = controller_->SubmitJson("proj", job);
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(*json, *controller_->GetJson("proj", "job_1"));
  EXPECT_EQ(*json, model::EncodeJob(*controller_->Get("proj", "job_1")));

  const Status taken = controller_->SubmitJson("proj", job).status();
  EXPECT_EQ(taken.ToString(), controller_->Submit("proj", job).status().ToString());
  EXPECT_EQ(taken.code(), Code::kAlreadyExists);
  model::Job invalid = ValidRuntimeJob("job_2");
  invalid.training_input->region.clear();
  const Status refused = controller_->SubmitJson("proj", invalid).status();
  EXPECT_EQ(refused.code(), Code::kInvalidArgument);
  EXPECT_EQ(refused.ToString(), controller_->Submit("proj", invalid).status().ToString());
  EXPECT_EQ(controller_->GetJson("proj", "job_2").status().code(), Code::kNotFound);
}

TEST_F(JsonReadTest, GetJsonHasGetsErrors) {
  const Status unknown = controller_->GetJson("proj", "nope").status();
  EXPECT_EQ(unknown.code(), Code::kNotFound);
  EXPECT_EQ(unknown.message(), controller_->Get("proj", "nope").status().message());
  const Status hostile = controller_->GetJson("proj", "../job").status();
  EXPECT_EQ(hostile.code(), Code::kInvalidArgument);
  ASSERT_EQ(hostile.violations().size(), 1U);
  EXPECT_EQ(hostile.violations()[0].field, "name");
}

TEST_F(JsonReadTest, ListJsonIsListEncodedWithAndWithoutAFilter) {
  for (int i = 0; i < 45; ++i) {
    model::Job job = ValidRuntimeJob("job_" + std::to_string(i));
    job.labels = {{"parity", i % 2 == 0 ? "even" : "odd"}};
    ASSERT_TRUE(controller_->Submit("proj", job).ok());
    if (i % 5 != 0) {  // some ties in createTime
      clock_.Advance(std::chrono::milliseconds(1));
    }
  }
  ASSERT_TRUE(controller_->Cancel("proj", "job_7").ok());

  EXPECT_EQ(ExpectListJsonIsListEncoded({.page_size = 10}), 5);
  EXPECT_EQ(ExpectListJsonIsListEncoded({}), 3);  // the default page size, 20
  EXPECT_EQ(ExpectListJsonIsListEncoded({.page_size = 10, .filter = "labels.parity=even"}), 3);
  EXPECT_EQ(ExpectListJsonIsListEncoded({.page_size = 100, .filter = "state=CANCELLED"}), 1);
  // job_0, job_1, job_10…job_19, job_2, job_20…job_29: 23 jobs, 4 pages of up to 7.
  EXPECT_EQ(
      ExpectListJsonIsListEncoded(
          {.page_size = 7, .scope = [](const model::Job& job) { return job.job_id < "job_3"; }}),
      4);
}

TEST_F(JsonReadTest, ListJsonHasListsErrors) {
  const std::vector<std::pair<std::string, ListJobsRequest>> cases = {
      {"proj", {.page_size = -1}},
      {"proj", {.page_token = "garbage!"}},
      {"proj", {.filter = "state=FAILED AND"}},
      {"../etc", {}},
  };
  for (const auto& [project, request] : cases) {
    const Status list = controller_->List(project, request).status();
    const Status json = controller_->ListJson(project, request).status();
    EXPECT_EQ(list.code(), Code::kInvalidArgument);
    EXPECT_EQ(json.ToString(), list.ToString());
  }
}

}  // namespace
}  // namespace trainyard::control::testing
