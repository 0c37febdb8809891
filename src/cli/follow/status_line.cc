#include "cli/follow/status_line.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace trainyard::cli {
namespace {

constexpr std::string_view kSeparator = " · ";
constexpr std::string_view kClearLine = "\r\033[K";

std::string FormatElapsed(std::chrono::seconds elapsed) {
  const std::int64_t total = std::max<std::int64_t>(elapsed.count(), 0);
  const std::int64_t hours = total / 3600;
  const std::int64_t minutes = total / 60 % 60;
  const std::int64_t seconds = total % 60;
  if (hours > 0) {
    return fmt::format("{}:{:02}:{:02}", hours, minutes, seconds);
  }
  return fmt::format("{:02}:{:02}", minutes, seconds);
}

}  // namespace

std::string FormatStatusLine(const FollowProgress& progress) {
  const model::Job& job = progress.job;
  std::string line(model::JobStateName(job.state));
  if (!progress.replicas.empty()) {
    const auto up = std::ranges::count_if(
        progress.replicas, [](const ReplicaStatus& replica) { return replica.state == "RUNNING"; });
    line += fmt::format("{}{}/{} {} up", kSeparator, up, progress.replicas.size(),
                        progress.replicas.size() == 1 ? "replica" : "replicas");
  }
  const std::optional<WallTime> since = job.start_time ? job.start_time : job.create_time;
  if (since) {
    const WallTime until = job.end_time.value_or(progress.now);
    line += fmt::format("{}{}", kSeparator,
                        FormatElapsed(std::chrono::floor<std::chrono::seconds>(until - *since)));
  }
  return line;
}

void StatusLine::Show(const std::string& text) {
  if (!enabled_) {
    return;
  }
  terminal_ << kClearLine << text << std::flush;
  shown_ = true;
}

void StatusLine::Clear() {
  if (!shown_) {
    return;
  }
  terminal_ << kClearLine << std::flush;
  shown_ = false;
}

}  // namespace trainyard::cli
