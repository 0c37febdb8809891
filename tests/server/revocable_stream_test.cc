// A stream ends once its caller's token no longer holds (issue #31), checked every `recheck`.
#include "server/revocable_stream.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"

namespace trainyard::server {
namespace {

// Sends "x" on every poll, forever.
class Endless final : public ResponseStream {
 public:
  bool Poll(std::string& out) override {
    out += "x";
    return true;
  }
};

TEST(RevocableStream, GoesOnWhileTheTokenHoldsAndEndsAtTheFirstCheckAfter) {
  testing::FakeClock clock;
  bool valid = true;
  int checks = 0;
  auto stream = RevocableStream(
      std::make_shared<Endless>(),
      [&] {
        ++checks;
        return valid;
      },
      clock, std::chrono::seconds(2));
  std::string out;
  EXPECT_TRUE(stream->Poll(out));
  clock.Advance(std::chrono::seconds(2));
  EXPECT_TRUE(stream->Poll(out));
  EXPECT_EQ(checks, 1);
  valid = false;  // revoked
  clock.Advance(std::chrono::seconds(1));
  EXPECT_TRUE(stream->Poll(out));  // not checked again yet
  EXPECT_EQ(checks, 1);
  clock.Advance(std::chrono::seconds(1));
  EXPECT_FALSE(stream->Poll(out));
  EXPECT_EQ(out, "xxx");  // nothing more once it is known
}

}  // namespace
}  // namespace trainyard::server
