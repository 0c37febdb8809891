#include "logs/log_record.h"

#include <cstdio>

namespace trainyard::logs {

void AppendRecord(std::string& out, std::string_view timestamp, Stream stream,
                  std::string_view text) {
  out.append(timestamp);
  out.push_back(' ');
  out.push_back(static_cast<char>(stream));
  out.push_back(' ');
  out.append(text);
  out.push_back('\n');
}

std::optional<LogRecord> ParseRecord(std::string_view line) {
  if (line.size() < kRecordPrefixBytes || line[kTimestampBytes] != ' ' ||
      line[kTimestampBytes + 2] != ' ' || line[kTimestampBytes - 1] != 'Z' || line[4] != '-' ||
      line[10] != 'T') {
    return std::nullopt;
  }
  const char stream = line[kTimestampBytes + 1];
  if (stream != static_cast<char>(Stream::kStdout) &&
      stream != static_cast<char>(Stream::kStderr)) {
    return std::nullopt;
  }
  return LogRecord{line.substr(0, kTimestampBytes), static_cast<Stream>(stream),
                   line.substr(kRecordPrefixBytes)};
}

std::string InsertId(std::uint64_t offset, std::string_view source) {
  char digits[24];
  const int n =
      std::snprintf(digits, sizeof digits, "%016llu", static_cast<unsigned long long>(offset));
  std::string id(digits, static_cast<std::size_t>(n));
  id.push_back('-');
  id.append(source);
  return id;
}

}  // namespace trainyard::logs
