#include "logs/log_entry.h"

#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace trainyard::logs {
namespace {

struct SeverityCase {
  std::string name;
  Severity severity;
  int rank;  // google.logging.type.LogSeverity
};

class SeverityTest : public ::testing::TestWithParam<SeverityCase> {};

TEST_P(SeverityTest, NameRoundTripsWithTheApiRank) {
  EXPECT_EQ(SeverityName(GetParam().severity), GetParam().name);
  EXPECT_EQ(ParseSeverity(GetParam().name), GetParam().severity);
  EXPECT_EQ(static_cast<int>(GetParam().severity), GetParam().rank);
}

INSTANTIATE_TEST_SUITE_P(LogSeverity, SeverityTest,
                         ::testing::Values(SeverityCase{"DEFAULT", Severity::kDefault, 0},
                                           SeverityCase{"DEBUG", Severity::kDebug, 100},
                                           SeverityCase{"INFO", Severity::kInfo, 200},
                                           SeverityCase{"NOTICE", Severity::kNotice, 300},
                                           SeverityCase{"WARNING", Severity::kWarning, 400},
                                           SeverityCase{"ERROR", Severity::kError, 500},
                                           SeverityCase{"CRITICAL", Severity::kCritical, 600},
                                           SeverityCase{"ALERT", Severity::kAlert, 700},
                                           SeverityCase{"EMERGENCY", Severity::kEmergency, 800}),
                         [](const auto& tc) { return tc.param.name; });

TEST(ParseSeverity, RefusesAnythingButTheUpperCaseApiNames) {
  for (const std::string name : {"", "warning", "Warning", "WARN", "FATAL", "INFO ", "400"}) {
    EXPECT_EQ(ParseSeverity(name), std::nullopt) << name;
  }
}

TEST(SeverityName, ShowsAnUnnamedValueAsDefault) {
  EXPECT_EQ(SeverityName(static_cast<Severity>(250)), "DEFAULT");
}

}  // namespace
}  // namespace trainyard::logs
