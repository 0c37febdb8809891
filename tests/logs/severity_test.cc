#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "logs/log_entry.h"
#include "logs/log_reader.h"

namespace trainyard::logs {
namespace {

struct SeverityCase {
  std::string name;
  Stream stream;
  std::string text;
  bool service;
  Severity expected;
};

class DetectSeverityTest : public ::testing::TestWithParam<SeverityCase> {};

TEST_P(DetectSeverityTest, NamesTheLevelOfTheLine) {
  const SeverityCase& c = GetParam();
  EXPECT_EQ(SeverityName(DetectSeverity(c.stream, c.text, c.service)), SeverityName(c.expected));
}

constexpr Stream kOut = Stream::kStdout;
constexpr Stream kErr = Stream::kStderr;

INSTANTIATE_TEST_SUITE_P(
    PrefixTable, DetectSeverityTest,
    ::testing::Values(
        // No prefix: the stream decides.
        SeverityCase{"PlainStdoutIsInfo", kOut, "Epoch 1/10 loss=0.31", false, Severity::kInfo},
        SeverityCase{"PlainStderrIsError", kErr, "Traceback (most recent call last):", false,
                     Severity::kError},
        SeverityCase{"EmptyStderrIsError", kErr, "", false, Severity::kError},
        // Python logging's default format, LEVEL:name:message.
        SeverityCase{"PythonWarning", kErr, "WARNING:root:low disk", false, Severity::kWarning},
        SeverityCase{"PythonInfoOnStderr", kErr, "INFO:tensorflow:Saving checkpoints", false,
                     Severity::kInfo},
        SeverityCase{"PythonDebug", kErr, "DEBUG:urllib3:connect", false, Severity::kDebug},
        SeverityCase{"PythonError", kOut, "ERROR:tensorflow:bad shape", false, Severity::kError},
        SeverityCase{"PythonCritical", kErr, "CRITICAL:root:dying", false, Severity::kCritical},
        SeverityCase{"WarnIsWarning", kErr, "WARN:root:old alias", false, Severity::kWarning},
        SeverityCase{"FatalIsCritical", kErr, "FATAL:root:old alias", false, Severity::kCritical},
        // "LEVEL - message" and "time - name - LEVEL - message".
        SeverityCase{"LevelDashMessage", kErr, "INFO - step 3", false, Severity::kInfo},
        SeverityCase{"AsctimeNameLevel", kErr,
                     "2026-11-21 09:35:01,123 - trainer - WARNING - lr too high", false,
                     Severity::kWarning},
        SeverityCase{"AsctimeLevel", kOut, "2026-11-21 09:35:01,123 - ERROR - oops", false,
                     Severity::kError},
        // absl / glog.
        SeverityCase{"GlogInfo", kErr, "I1121 09:35:01.123456  123 file.py:12] hello", false,
                     Severity::kInfo},
        SeverityCase{"GlogWarning", kOut, "W1121 09:35:01.123456  123 file.py:12] hmm", false,
                     Severity::kWarning},
        SeverityCase{"GlogError", kOut, "E1121 09:35:01.123456  123 file.py:12] bad", false,
                     Severity::kError},
        SeverityCase{"GlogFatal", kOut, "F1121 09:35:01.123456  123 file.py:12] dead", false,
                     Severity::kCritical},
        // TensorFlow C++.
        SeverityCase{"TensorflowWarning", kErr,
                     "2026-11-21 09:35:01.123456: W tensorflow/core/x.cc:42] slow", false,
                     Severity::kWarning},
        SeverityCase{"TensorflowInfo", kErr,
                     "2026-11-21 09:35:01.123456: I tensorflow/core/x.cc:42] fine", false,
                     Severity::kInfo},
        SeverityCase{"TensorflowError", kOut, "2026-11-21 09:35:01: E tensorflow/x.cc:1] no", false,
                     Severity::kError},
        // Near misses keep the stream's level.
        SeverityCase{"LowerCaseIsNotALevel", kErr, "warning: deprecated", false, Severity::kError},
        SeverityCase{"WordWithoutSeparator", kOut, "ERRORS were few", false, Severity::kInfo},
        SeverityCase{"LevelLaterInLine", kOut, "epoch 3 ERROR: none", false, Severity::kInfo},
        SeverityCase{"GlogLetterWithoutTime", kErr, "I am done", false, Severity::kError},
        SeverityCase{"UnknownGlogLetter", kOut, "X1121 09:35:01.123456  1 f.py:1] x", false,
                     Severity::kInfo},
        SeverityCase{"DashLevelTooFarIn", kOut, std::string(200, 'x') + " - ERROR - late", false,
                     Severity::kInfo},
        // The service's own messages: no prefix detection.
        SeverityCase{"ServiceStdoutIsInfo", kOut, "WARNING:root:looks like a level", true,
                     Severity::kInfo},
        SeverityCase{"ServiceStderrIsError", kErr, "INFO:root:still an error", true,
                     Severity::kError}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::logs
