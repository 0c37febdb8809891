#include "cli/follow/log_entries.h"

#include <array>
#include <ctime>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "cli/client/json_fields.h"

namespace trainyard::cli {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 9> kSeverities = {
    "DEFAULT", "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL", "ALERT", "EMERGENCY"};

Status NotAPage(std::string_view why) {
  return Status::InvalidArgument(std::string(why));
}

const json& ObjectAt(const json& object, std::string_view key) {
  static const json kNone;
  if (!object.is_object()) {
    return kNone;
  }
  const auto found = object.find(key);
  return found == object.end() ? kNone : *found;
}

std::string Severity(const json& entry) {
  const std::optional<std::string> name = StringAt(entry, "severity");
  for (std::string_view known : kSeverities) {
    if (name && *name == known) {
      return *name;
    }
  }
  return "DEFAULT";  // apitools leaves an unknown enum name unset
}

// `_EntryToDict`: jsonPayload's `message` first, then textPayload; protoPayload has no text.
std::string Message(const json& entry) {
  const json& payload = ObjectAt(entry, "jsonPayload");
  if (payload.is_object()) {
    const json& message = ObjectAt(payload, "message");
    if (message.is_string()) {
      return message.get<std::string>();
    }
    return message.is_null() ? std::string() : message.dump();
  }
  return StringAt(entry, "textPayload").value_or("");
}

Result<ListedLogEntry> DecodeEntry(const json& entry, std::size_t index) {
  if (!entry.is_object()) {
    return NotAPage(fmt::format("entries[{}] is not an object", index));
  }
  ListedLogEntry out;
  std::optional<std::string> timestamp = StringAt(entry, "timestamp");
  std::optional<std::string> insert_id = StringAt(entry, "insertId");
  if (!timestamp || !insert_id) {
    return NotAPage(
        fmt::format("entries[{}] has no {}", index, timestamp ? "insertId" : "timestamp"));
  }
  out.timestamp = *std::move(timestamp);
  out.insert_id = *std::move(insert_id);
  out.severity = Severity(entry);
  const json& labels = ObjectAt(entry, "labels");
  const json& resource_labels = ObjectAt(ObjectAt(entry, "resource"), "labels");
  out.task_name =
      StringAt(resource_labels, "task_name")
          .value_or(
              StringAt(labels, "task_name")
                  .value_or(
                      StringAt(labels, "ml.googleapis.com/task_name").value_or("unknown_task")));
  out.trial_id = StringAt(labels, "trial_id")
                     .value_or(StringAt(labels, "ml.googleapis.com/trial_id").value_or(""));
  out.message = Message(entry);
  return out;
}

// The length of the line break starting at `text[i]`, or 0 when there is none.
std::size_t LineBreakAt(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) {
    return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u;
  };
  switch (byte(i)) {
    case '\r':
      return byte(i + 1) == '\n' ? 2 : 1;
    case '\n':
    case '\v':
    case '\f':
    case 0x1c:
    case 0x1d:
    case 0x1e:
      return 1;
    case 0xc2:  // U+0085
      return byte(i + 1) == 0x85 ? 2 : 0;
    case 0xe2:  // U+2028, U+2029
      return byte(i + 1) == 0x80 && (byte(i + 2) == 0xa8 || byte(i + 2) == 0xa9) ? 3 : 0;
    default:
      return 0;
  }
}

}  // namespace

Result<LogEntriesPage> DecodeLogEntriesPage(std::string_view body) {
  const json page = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!page.is_object()) {
    return NotAPage("not a JSON object");
  }
  LogEntriesPage out;
  if (const auto token = page.find("nextPageToken"); token != page.end()) {
    if (!token->is_string()) {
      return NotAPage("nextPageToken is not a string");
    }
    out.next_page_token = token->get<std::string>();
  }
  const auto entries = page.find("entries");
  if (entries == page.end()) {
    return out;
  }
  if (!entries->is_array()) {
    return NotAPage("entries is not a list");
  }
  for (std::size_t i = 0; i < entries->size(); ++i) {
    auto entry = DecodeEntry((*entries)[i], i);
    if (!entry.ok()) {
      return entry.status();
    }
    out.entries.push_back(*std::move(entry));
  }
  return out;
}

std::vector<std::string> SplitLogMessage(std::string_view message) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  std::size_t i = 0;
  while (i < message.size()) {
    const std::size_t length = LineBreakAt(message, i);
    if (length == 0) {
      ++i;
      continue;
    }
    lines.emplace_back(message.substr(start, i - start));
    i += length;
    start = i;
  }
  if (start < message.size() || lines.empty()) {
    lines.emplace_back(message.substr(start));
  }
  return lines;
}

std::string LocalLogDate(WallTime time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  char text[64];
  const std::size_t n = std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S %z", &tm);
  return std::string(text, n);
}

std::string FormatLogEntry(const ListedLogEntry& entry, bool allow_multiline,
                           const LogDateFormatter& date, bool trial_column) {
  const std::optional<WallTime> time = ParseTimestamp(entry.timestamp);
  std::string prefix = fmt::format("{}\t{}\t{}\t", entry.severity,
                                   time ? date(*time) : std::string(), entry.task_name);
  if (trial_column) {
    prefix += entry.trial_id + "\t";
  }
  if (allow_multiline) {
    return prefix + entry.message + "\n";
  }
  std::string rows;
  for (const std::string& line : SplitLogMessage(entry.message)) {
    rows += prefix + line + "\n";
  }
  return rows;
}

}  // namespace trainyard::cli
