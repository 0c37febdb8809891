#include "store/object_names.h"

#include <string>

#include <gtest/gtest.h>

namespace trainyard::store::internal {
namespace {

struct NameCase {
  std::string name;  // the row's name
  std::string input;
  NameUse use;
  Code code;
};

class ObjectNameTest : public ::testing::TestWithParam<NameCase> {};

TEST_P(ObjectNameTest, IsCheckedBeforeAnyIo) {
  const NameCase& c = GetParam();
  const Status status = CheckObjectName("bkt", c.input, c.use);
  EXPECT_EQ(status.code(), c.code) << status.ToString();
  if (c.code == Code::kInvalidArgument) {
    ASSERT_EQ(status.violations().size(), 1U);
    EXPECT_EQ(status.violations()[0].field, "object");
  }
  if (c.code == Code::kNotFound) {
    EXPECT_EQ(status.message(), "No such object: bkt/" + c.input);
  }
}

const std::string kLongSegment(256, 's');
// 1024 bytes: 255 + 1 + 255 + 1 + 255 + 1 + 254 + 1 + 1.
const std::string kMaxName = std::string(255, 'a') + "/" + std::string(255, 'b') + "/" +
                             std::string(255, 'c') + "/" + std::string(254, 'd') + "/e";

INSTANTIATE_TEST_SUITE_P(
    Names, ObjectNameTest,
    ::testing::Values(
        NameCase{"Plain", "model.bin", NameUse::kWrite, Code::kOk},
        NameCase{"Nested", "jobs/j1/trainer-0.1.tar.gz", NameUse::kWrite, Code::kOk},
        NameCase{"Spaces", "my file (1).txt", NameUse::kWrite, Code::kOk},
        NameCase{"Utf8", "caf\xc3\xa9/\xe6\x97\xa5.txt", NameUse::kWrite, Code::kOk},
        NameCase{"DotsInside", "a..b/.hidden/x.", NameUse::kWrite, Code::kOk},
        NameCase{"MaxLength", kMaxName, NameUse::kWrite, Code::kOk},
        NameCase{"Empty", "", NameUse::kRead, Code::kInvalidArgument},
        NameCase{"TooLong", kMaxName + "e", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"LongSegment", "a/" + kLongSegment, NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"Parent", "..", NameUse::kRead, Code::kInvalidArgument},
        NameCase{"ParentFirst", "../other-bucket/x", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"ParentInside", "a/../../etc/passwd", NameUse::kRead, Code::kInvalidArgument},
        NameCase{"ParentLast", "a/..", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"Current", "./a", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"CurrentInside", "a/./b", NameUse::kRead, Code::kInvalidArgument},
        NameCase{"Absolute", "/etc/passwd", NameUse::kRead, Code::kInvalidArgument},
        NameCase{"Nul", std::string("a\0b", 3), NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"Newline", "a\nb", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"CarriageReturn", "a\rb", NameUse::kRead, Code::kInvalidArgument},
        NameCase{"BadUtf8", "a\xff", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"OverlongUtf8", "\xc0\xaf", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"TruncatedUtf8", "ab\xe6\x97", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"Surrogate", "\xed\xa0\x80", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"FolderWrite", "x/", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"FolderRead", "x/", NameUse::kRead, Code::kNotFound},
        NameCase{"DoubleSlashWrite", "a//b", NameUse::kWrite, Code::kInvalidArgument},
        NameCase{"DoubleSlashRead", "a//b", NameUse::kRead, Code::kNotFound}),
    [](const auto& tc) { return tc.param.name; });

struct BucketCase {
  std::string name;
  std::string input;
  bool valid;
};

class BucketNameTest : public ::testing::TestWithParam<BucketCase> {};

TEST_P(BucketNameTest, FollowsGcsRules) {
  const Status status = CheckBucketName(GetParam().input);
  EXPECT_EQ(status.ok(), GetParam().valid) << status.ToString();
  if (!status.ok()) {
    ASSERT_EQ(status.violations().size(), 1U);
    EXPECT_EQ(status.violations()[0].field, "bucket");
    EXPECT_EQ(status.code(), Code::kInvalidArgument);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Names, BucketNameTest,
    ::testing::Values(
        BucketCase{"Short", "abc", true}, BucketCase{"Mixed", "a_b.c-d9", true},
        BucketCase{"Max", std::string(63, 'b'), true}, BucketCase{"TooShort", "ab", false},
        BucketCase{"TooLong", std::string(64, 'b'), false}, BucketCase{"Upper", "Bucket", false},
        BucketCase{"Slash", "a/b/c", false}, BucketCase{"Parent", "..", false},
        BucketCase{"Scratch", ".uploads", false}, BucketCase{"LeadingDash", "-abc", false},
        BucketCase{"TrailingDot", "abc.", false}, BucketCase{"Nul", std::string("ab\0c", 4), false},
        BucketCase{"Empty", "", false}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::store::internal
