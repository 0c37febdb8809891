#include "control/service_log.h"

#include <algorithm>

#include "logs/capture.h"

namespace trainyard::control {

void AppendServiceMessage(const std::string& path, const Clock& clock, bool error,
                          std::string_view message) {
  Result<logs::RecordWriter> writer = logs::RecordWriter::Open(path, clock);
  if (!writer.ok()) {
    return;
  }
  const logs::Stream stream = error ? logs::Stream::kStderr : logs::Stream::kStdout;
  for (std::size_t start = 0; start <= message.size();) {
    const std::size_t end = std::min(message.find('\n', start), message.size());
    (void)writer->WriteLine(stream, message.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace trainyard::control
