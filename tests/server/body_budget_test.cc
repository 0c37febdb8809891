// BodyBudget (server/body_budget.h): a total of bytes that reservations hold at once; each
// reservation gives its bytes back when released, moved from or destroyed.
#include "server/body_budget.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

struct ReserveCase {
  std::string name;
  std::uint64_t capacity;
  std::vector<std::uint64_t> held;  // reservations already made, all granted
  std::uint64_t asked;
  bool granted;
};

class TryReserveTest : public ::testing::TestWithParam<ReserveCase> {};

TEST_P(TryReserveTest, GrantsWhatIsLeftOfTheBudget) {
  const ReserveCase& c = GetParam();
  BodyBudget budget(c.capacity, "bodies");
  std::vector<BodyBudget::Reservation> held;
  std::uint64_t total = 0;
  for (const std::uint64_t bytes : c.held) {
    std::optional<BodyBudget::Reservation> r = budget.TryReserve(bytes);
    ASSERT_TRUE(r.has_value()) << bytes;
    held.push_back(*std::move(r));
    total += bytes;
  }
  const std::optional<BodyBudget::Reservation> asked = budget.TryReserve(c.asked);
  EXPECT_EQ(asked.has_value(), c.granted);
  EXPECT_EQ(budget.in_use(), total + (c.granted ? c.asked : 0));
  if (asked) {
    EXPECT_EQ(asked->bytes(), c.asked);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TryReserveTest,
    ::testing::Values(ReserveCase{"EmptyBudgetHoldsItsCapacity", 100, {}, 100, true},
                      ReserveCase{"NotOneByteMore", 100, {}, 101, false},
                      ReserveCase{"WhatIsLeft", 100, {60}, 40, true},
                      ReserveCase{"MoreThanIsLeft", 100, {60}, 41, false},
                      ReserveCase{"ZeroFitsAFullBudget", 100, {100}, 0, true},
                      ReserveCase{"NoOverflowNearTheTop", UINT64_MAX, {UINT64_MAX - 1}, 2, false},
                      ReserveCase{"ZeroCapacityHoldsNothing", 0, {}, 1, false}),
    [](const auto& test) { return test.param.name; });

TEST(BodyBudget, EveryWayAReservationEndsGivesItsBytesBack) {
  BodyBudget budget(100, "bodies");
  {
    const std::optional<BodyBudget::Reservation> scoped = budget.TryReserve(30);
    ASSERT_TRUE(scoped);
    EXPECT_EQ(budget.in_use(), 30U);
  }
  EXPECT_EQ(budget.in_use(), 0U) << "destroyed";

  std::optional<BodyBudget::Reservation> first = budget.TryReserve(30);
  ASSERT_TRUE(first);
  first->Release();
  first->Release();  // idempotent
  EXPECT_EQ(budget.in_use(), 0U) << "released";
  EXPECT_EQ(first->bytes(), 0U);

  BodyBudget::Reservation moved = *budget.TryReserve(40);
  BodyBudget::Reservation into = std::move(moved);
  EXPECT_EQ(budget.in_use(), 40U) << "moving hands the bytes over, once";
  EXPECT_EQ(moved.bytes(), 0U);  // NOLINT(bugprone-use-after-move): moved from is empty
  into = *budget.TryReserve(10);
  EXPECT_EQ(budget.in_use(), 10U) << "assigning over a reservation releases it";
  into = BodyBudget::Reservation();
  EXPECT_EQ(budget.in_use(), 0U);
}

TEST(BodyBudget, AReservationGrowsWhileTheBudgetHoldsIt) {
  BodyBudget budget(100, "bodies");
  BodyBudget::Reservation chunked = *budget.TryReserve(0);
  const BodyBudget::Reservation other = *budget.TryReserve(50);
  EXPECT_TRUE(chunked.GrowTo(20));
  EXPECT_TRUE(chunked.GrowTo(10)) << "already held";
  EXPECT_EQ(chunked.bytes(), 20U);
  EXPECT_FALSE(chunked.GrowTo(51)) << "31 more do not fit beside 70";
  EXPECT_EQ(chunked.bytes(), 20U) << "unchanged by a refusal";
  EXPECT_TRUE(chunked.GrowTo(50));
  EXPECT_EQ(budget.in_use(), 100U);
  chunked.Release();
  EXPECT_EQ(budget.in_use(), 50U);
  EXPECT_FALSE(chunked.GrowTo(1)) << "a released reservation has no budget";
  EXPECT_TRUE(BodyBudget::Reservation().GrowTo(0));
}

TEST(BodyBudget, ConcurrentReservationsNeverPassTheCapacity) {
  constexpr std::uint64_t kCapacity = 1000;
  BodyBudget budget(kCapacity, "bodies");
  std::vector<std::jthread> threads;
  std::atomic<bool> over{false};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20'000; ++i) {
        std::optional<BodyBudget::Reservation> r = budget.TryReserve(7);
        if (budget.in_use() > kCapacity) {
          over = true;
        }
        if (r && !r->GrowTo(13) && r->bytes() != 7) {
          over = true;
        }
      }
    });
  }
  threads.clear();
  EXPECT_FALSE(over.load());
  EXPECT_EQ(budget.in_use(), 0U);
}

TEST(BodyBudget, ARefusalNamesTheLimitAndSaysToRetry) {
  const BodyBudget budget(4096, "request bodies held in memory");
  const Status refusal = budget.Refusal(5000);
  EXPECT_EQ(refusal.code(), Code::kUnavailable);
  EXPECT_EQ(refusal.message(),
            "The server is holding too many request bodies at once: 5000 more bytes would pass "
            "its limit of 4096 bytes of request bodies held in memory in flight. Retry shortly.");
}

}  // namespace
}  // namespace trainyard::server
