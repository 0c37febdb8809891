// os/host.h against what the system itself says.
#include "os/host.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

namespace trainyard::os {
namespace {

TEST(Host, CpuCountIsTheAffinityMasks) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(UsableCpuCount(), CPU_COUNT(&set));
  EXPECT_GE(UsableCpuCount(), 1);
}

TEST(Host, CpuCountFollowsANarrowedMask) {
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  int first = 0;
  while (!CPU_ISSET(first, &all)) {
    ++first;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const int count = UsableCpuCount();
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
  EXPECT_EQ(count, 1);
}

TEST(Host, MemoryIsThePagesTimesTheirSize) {
  Result<std::int64_t> bytes = PhysicalMemoryBytes();
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_EQ(*bytes, static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE));
  EXPECT_GT(*bytes, 0);
}

}  // namespace
}  // namespace trainyard::os
