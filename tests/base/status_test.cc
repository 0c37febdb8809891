#include "base/status.h"

#include <gtest/gtest.h>

namespace trainyard {
namespace {

TEST(Status, DefaultIsOk) {
  const Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), Code::kOk);
  EXPECT_EQ(status.ToString(), "OK");
}

TEST(Status, InvalidArgumentNamesFirstFieldAndCountsOthers) {
  const Status status = Status::InvalidArgument(
      {{"jobId", "must start with a letter"}, {"trainingInput.region", "is required"}});
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(), "Field: jobId Error: must start with a letter (and 1 more)");
  ASSERT_EQ(status.violations().size(), 2u);
  EXPECT_EQ(status.violations()[1].field, "trainingInput.region");
  EXPECT_NE(status.ToString().find("trainingInput.region: is required"), std::string::npos);
}

TEST(Status, FromCodeKeepsMessageAndViolations) {
  const Status status = Status::FromCode(Code::kDataLoss, "disk gone", {{"name", "unreadable"}});
  EXPECT_EQ(status.code(), Code::kDataLoss);
  EXPECT_EQ(status.message(), "disk gone");
  ASSERT_EQ(status.violations().size(), 1u);
  EXPECT_EQ(status.violations()[0].field, "name");
  EXPECT_EQ(status.ToString(), "DATA_LOSS: disk gone\n  name: unreadable");
}

TEST(Status, ToStringDoesNotRepeatTheOnlyViolation) {
  EXPECT_EQ(Status::InvalidArgument({{"jobId", "is required"}}).ToString(),
            "INVALID_ARGUMENT: Field: jobId Error: is required");
}

TEST(Status, CodeNamesMatchGoogleRpc) {
  EXPECT_EQ(CodeName(Code::kInvalidArgument), "INVALID_ARGUMENT");
  EXPECT_EQ(CodeName(Code::kFailedPrecondition), "FAILED_PRECONDITION");
  EXPECT_EQ(CodeName(Code::kAlreadyExists), "ALREADY_EXISTS");
  EXPECT_EQ(CodeName(Code::kUnauthenticated), "UNAUTHENTICATED");
  EXPECT_EQ(static_cast<int>(Code::kNotFound), 5);
}

Result<int> Half(int n) {
  if (n % 2 != 0)
    return Status::InvalidArgument("odd: " + std::to_string(n));
  return n / 2;
}

Status HalveTwice(int n, int& out) {
  auto first = Half(n);
  if (!first.ok())
    return first.status();
  auto second = Half(*first);
  TY_RETURN_IF_ERROR(second.status());
  out = *second;
  return Status();
}

TEST(Result, CarriesValueOrError) {
  const auto good = Half(8);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 4);
  EXPECT_TRUE(good.status().ok());
  const auto bad = Half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "odd: 3");
}

TEST(Result, PropagatesThroughReturnIfError) {
  int out = 0;
  EXPECT_TRUE(HalveTwice(12, out).ok());
  EXPECT_EQ(out, 3);
  const Status status = HalveTwice(6, out);
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(), "odd: 3");
}

TEST(ResultDeathTest, ValueOfErrorAborts) {
  const auto bad = Half(1);
  EXPECT_DEATH({ (void)*bad; }, "value\\(\\) of an error Result");
}

}  // namespace
}  // namespace trainyard
