#include "control/etag.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "base/base64.h"

namespace trainyard::control {
namespace {

TEST(NextEtag, IsPaddedBase64OfEightBytes) {
  const std::string etag = NextEtag("proj", "job_1", "");
  EXPECT_EQ(etag.size(), 12U);
  EXPECT_TRUE(etag.ends_with('=')) << etag;
  const auto bytes = Base64Decode(etag, Base64Alphabet::kStandard);
  ASSERT_TRUE(bytes.has_value()) << etag;
  EXPECT_EQ(bytes->size(), 8U);
}

TEST(NextEtag, IsDeterministic) {
  EXPECT_EQ(NextEtag("proj", "job_1", ""), NextEtag("proj", "job_1", ""));
  const std::string first = NextEtag("proj", "job_1", "");
  EXPECT_EQ(NextEtag("proj", "job_1", first), NextEtag("proj", "job_1", first));
}

TEST(NextEtag, ChangesOnEveryRevision) {
  std::set<std::string> seen;
  std::string etag;
  for (int revision = 0; revision < 10'000; ++revision) {
    etag = NextEtag("proj", "job_1", etag);
    EXPECT_TRUE(seen.insert(etag).second) << "repeated at revision " << revision;
  }
}

TEST(NextEtag, DiffersBetweenJobsAndProjects) {
  const std::string base = NextEtag("proj", "job_1", "");
  EXPECT_NE(base, NextEtag("proj", "job_2", ""));
  EXPECT_NE(base, NextEtag("proj2", "job_1", ""));
  EXPECT_NE(NextEtag("ab", "c", ""), NextEtag("a", "bc", ""));  // parts do not run together
}

}  // namespace
}  // namespace trainyard::control
