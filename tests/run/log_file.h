// Reads a replica's records file (logs/log_record.h) back, for tests of what was captured.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "logs/log_record.h"

namespace trainyard::run::testing {

struct CapturedLine {
  std::string timestamp;
  char stream = 0;  // 'O' or 'E'
  std::string text;
};

// Every record of the file at `path` (none when it is missing); a line that is not a record
// fails the test.
inline std::vector<CapturedLine> ReadCaptured(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<CapturedLine> lines;
  std::string line;
  while (std::getline(in, line)) {
    std::optional<logs::LogRecord> record = logs::ParseRecord(line);
    if (!record.has_value()) {
      ADD_FAILURE() << path << " has a line that is not a record: " << line;
      continue;
    }
    lines.push_back({std::string(record->timestamp), static_cast<char>(record->stream),
                     std::string(record->text)});
  }
  return lines;
}

// The texts of `path`'s records, each followed by '\n'; only `stream`'s ('O' or 'E') when given.
inline std::string CapturedText(const std::string& path, char stream = 0) {
  std::string text;
  for (const CapturedLine& line : ReadCaptured(path)) {
    if (stream == 0 || line.stream == stream) {
      text += line.text + "\n";
    }
  }
  return text;
}

// Every record as "<stream> <text>\n", in file order.
inline std::string CapturedStreams(const std::string& path) {
  std::string text;
  for (const CapturedLine& line : ReadCaptured(path)) {
    text += std::string(1, line.stream) + " " + line.text + "\n";
  }
  return text;
}

}  // namespace trainyard::run::testing
