#include "run/slurm/hostlist.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::run::slurm {
namespace {

using Hosts = std::vector<std::string>;

struct ExpandCase {
  std::string name;
  std::string list;
  Hosts hosts;
};

class ExpandHostlistTest : public ::testing::TestWithParam<ExpandCase> {};

TEST_P(ExpandHostlistTest, GivesTheNamesScontrolShowHostnamesGives) {
  const Result<Hosts> hosts = ExpandHostlist(GetParam().list);
  ASSERT_TRUE(hosts.ok()) << hosts.status().ToString();
  EXPECT_EQ(*hosts, GetParam().hosts);
}

// The expected names are `scontrol show hostnames` output (Slurm 22.05.8), except "Suffix",
// which 22.05 refuses and later versions accept.
INSTANTIATE_TEST_SUITE_P(
    Table, ExpandHostlistTest,
    ::testing::Values(
        ExpandCase{"OneName", "n1", {"n1"}}, ExpandCase{"Names", "a,b", {"a", "b"}},
        ExpandCase{"HeaderExample",
                   "n[1-3,5],gpu-[01-02],login",
                   {"n1", "n2", "n3", "n5", "gpu-01", "gpu-02", "login"}},
        ExpandCase{"OneInBrackets", "n[7]", {"n7"}},
        ExpandCase{"PaddingKept", "[08-10]", {"08", "09", "10"}},
        ExpandCase{"NoPaddingGrows", "n[8-10]", {"n8", "n9", "n10"}},
        ExpandCase{"WidthOfTheStart", "n[1-003]", {"n1", "n2", "n3"}},
        ExpandCase{"WideStart", "n[010-12]", {"n010", "n011", "n012"}},
        ExpandCase{"SingleRangeStart", "n[01-1]", {"n01"}},
        ExpandCase{"GroupsMultiply", "r[1-2]n[1-2]", {"r1n1", "r1n2", "r2n1", "r2n2"}},
        ExpandCase{"GroupsMultiplyInOrder", "n[9-10]x[1-2]", {"n9x1", "n9x2", "n10x1", "n10x2"}},
        ExpandCase{"Suffix", "n[1-2]-ib", {"n1-ib", "n2-ib"}},
        ExpandCase{"EighteenDigits",
                   "n[999999999999999998-999999999999999999]",
                   {"n999999999999999998", "n999999999999999999"}}),
    [](const auto& tc) { return tc.param.name; });

struct BadHostlistCase {
  std::string name;
  std::string list;
  std::string problem;  // in the message
};

class ExpandHostlistBadTest : public ::testing::TestWithParam<BadHostlistCase> {};

TEST_P(ExpandHostlistBadTest, IsInvalidArgumentNamingTheProblem) {
  const Result<Hosts> hosts = ExpandHostlist(GetParam().list, 100);
  ASSERT_FALSE(hosts.ok());
  EXPECT_EQ(hosts.status().code(), Code::kInvalidArgument);
  EXPECT_NE(hosts.status().message().find(GetParam().problem), std::string::npos)
      << hosts.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Table, ExpandHostlistBadTest,
    ::testing::Values(BadHostlistCase{"Empty", "", "empty"},
                      BadHostlistCase{"EmptyName", "a,,b", "empty"},
                      BadHostlistCase{"TrailingComma", "a,", "empty"},
                      BadHostlistCase{"Unclosed", "n[1-2", "not closed"},
                      BadHostlistCase{"Nested", "n[1[2]]", "not closed"},
                      BadHostlistCase{"StrayClose", "n1-2]", "closes no"},
                      BadHostlistCase{"Backwards", "n[3-1]", "ends before it starts"},
                      BadHostlistCase{"Letters", "n[a-b]", "\"a-b\" is not a number"},
                      BadHostlistCase{"EmptyGroup", "n[]", "\"\" is not a number"},
                      BadHostlistCase{"EmptyItem", "n[1,]", "\"\" is not a number"},
                      BadHostlistCase{"NoStart", "n[-3]", "\"-3\" is not a number"},
                      BadHostlistCase{"NoEnd", "n[1-]", "\"1-\" is not a number"},
                      BadHostlistCase{"Huge", "n[1-99999999999999999999]", "is not a number"},
                      BadHostlistCase{"TooManyInARange", "n[1-101]", "more than 100 hosts"},
                      BadHostlistCase{"TooManyMultiplied", "a[1-11]b[1-10]", "more than 100 hosts"},
                      BadHostlistCase{"TooManyInAll", "a[1-60],b[1-41]", "more than 100 hosts"},
                      BadHostlistCase{"TooManyHugeRanges",
                                      "a[0-999999999999999999,0-999999999999999999]",
                                      "more than 100 hosts"}),
    [](const auto& tc) { return tc.param.name; });

TEST(ExpandHostlist, GivesExactlyMaxHosts) {
  const Result<Hosts> hosts = ExpandHostlist("a[1-10]b[1-10]", 100);
  ASSERT_TRUE(hosts.ok()) << hosts.status().ToString();
  ASSERT_EQ(hosts->size(), 100u);
  EXPECT_EQ(hosts->front(), "a1b1");
  EXPECT_EQ(hosts->back(), "a10b10");
}

TEST(ExpandHostlist, NamesTheListInItsMessage) {
  const Result<Hosts> hosts = ExpandHostlist("n[3-1]");
  ASSERT_FALSE(hosts.ok());
  EXPECT_NE(hosts.status().message().find("\"n[3-1]\""), std::string::npos)
      << hosts.status().message();
}

}  // namespace
}  // namespace trainyard::run::slurm
