// os/socket.h on a connected pair of local sockets.
#include "os/socket.h"

#include <array>

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "os/unique_fd.h"

namespace trainyard::os {
namespace {

TEST(PeekSocket, SaysWhatWaitsWithoutTakingIt) {
  std::array<int, 2> ends{};
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, ends.data()), 0);
  UniqueFd ours(ends[0]);
  UniqueFd theirs(ends[1]);
  EXPECT_EQ(PeekSocket(ours.get()), SocketPeek::kNothing);
  ASSERT_EQ(::write(theirs.get(), "x", 1), 1);
  EXPECT_EQ(PeekSocket(ours.get()), SocketPeek::kData);
  EXPECT_EQ(PeekSocket(ours.get()), SocketPeek::kData);  // still there: only looked at
  char byte = 0;
  ASSERT_EQ(::read(ours.get(), &byte, 1), 1);
  theirs.reset();
  EXPECT_EQ(PeekSocket(ours.get()), SocketPeek::kEnd);
  EXPECT_EQ(PeekSocket(-1), SocketPeek::kError);
}

}  // namespace
}  // namespace trainyard::os
