#include "base/disk_full.h"

#include <cerrno>

#include <gtest/gtest.h>

namespace trainyard {
namespace {

TEST(DiskFull, FullDiskAndQuotaErrnosOnly) {
  EXPECT_TRUE(IsDiskFull(ENOSPC));
  EXPECT_TRUE(IsDiskFull(EDQUOT));
  EXPECT_FALSE(IsDiskFull(EIO));
  EXPECT_FALSE(IsDiskFull(0));
}

TEST(DiskFull, ErrorIsResourceExhaustedInAUsersWords) {
  const Status status = DiskFullError("write /data/x");
  EXPECT_EQ(status.code(), Code::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "The server's disk is full (No space left on device): cannot write /data/x. Free "
            "space where the server keeps its data, then retry.");
  EXPECT_EQ(DiskFullError("store the job", "database or disk is full").message().substr(0, 53),
            "The server's disk is full (database or disk is full):");
}

}  // namespace
}  // namespace trainyard
