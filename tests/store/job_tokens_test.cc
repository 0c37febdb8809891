#include "store/job_tokens.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "fakes/temp_dir.h"

namespace trainyard::store {
namespace {

class JobTokensTest : public ::testing::Test {
 protected:
  std::unique_ptr<JobTokens> Open() {
    auto opened = JobTokens::Open(path_);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? *std::move(opened) : nullptr;
  }

  testing::TempDir dir_;
  std::string path_ = JobTokenKeyPath(dir_.path().string());
};

TEST_F(JobTokensTest, ATokenNamesItsJobAndVerifiesUnderItsKey) {
  const auto tokens = Open();
  const std::string token = tokens->Issue("example.com:proj", "job_1");
  EXPECT_TRUE(token.starts_with(kJobTokenPrefix)) << token;
  const auto subject = tokens->Verify(token);
  ASSERT_TRUE(subject.has_value());
  EXPECT_EQ(subject->project, "example.com:proj");
  EXPECT_EQ(subject->job_id, "job_1");
  EXPECT_EQ(tokens->Issue("example.com:proj", "job_1"), token);  // deterministic
  EXPECT_NE(tokens->Issue("example.com:proj", "job_2"), token);
}

TEST_F(JobTokensTest, TheKeyIsMadeOnceReadableByItsOwnerAndKept) {
  const std::string token = Open()->Issue("p", "j");
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(st.st_size, 32);
  EXPECT_TRUE(Open()->Verify(token).has_value());  // a restarted server honours it
}

TEST_F(JobTokensTest, RefusesTamperedForeignAndMalformedTokens) {
  const auto tokens = Open();
  const std::string token = tokens->Issue("p", "j");
  std::string tampered = token;
  tampered.back() = tampered.back() == 'A' ? 'B' : 'A';
  // The same job under another key (another server's data dir).
  testing::TempDir other_dir;
  const auto other = JobTokens::Open(JobTokenKeyPath(other_dir.path().string()));
  ASSERT_TRUE(other.ok());
  // Another job's MAC on this job's name.
  const std::string other_job = tokens->Issue("p", "k");
  const std::string swapped =
      token.substr(0, token.rfind('.')) + other_job.substr(other_job.rfind('.'));
  for (const std::string& bad :
       {tampered, (*other)->Issue("p", "j"), swapped, std::string("tyj."), std::string("tyj.a.b"),
        std::string("tyj.a.b.c.d"), std::string("tyj..."), token + "=", std::string("ty_x"),
        std::string("tyj.cA.ag.!!!")}) {
    EXPECT_FALSE(tokens->Verify(bad).has_value()) << bad;
  }
}

TEST_F(JobTokensTest, ADamagedKeyIsAClearError) {
  std::ofstream(path_) << "short";
  const auto opened = JobTokens::Open(path_);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(opened.status().message().find(path_), std::string::npos);
  EXPECT_NE(opened.status().message().find("32 bytes"), std::string::npos);
}

}  // namespace
}  // namespace trainyard::store
