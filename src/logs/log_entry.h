// A log entry as the logging v2 API shows it (docs/reference/ai-platform-training.md §10.2): one
// captured line with its job, task, severity and ids. Built by the reader (logs/log_reader.h) from
// a record and its source.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trainyard::logs {

// google.logging.type.LogSeverity, with its numeric values (comparisons use them).
enum class Severity : int {
  kDefault = 0,
  kDebug = 100,
  kInfo = 200,
  kNotice = 300,
  kWarning = 400,
  kError = 500,
  kCritical = 600,
  kAlert = 700,
  kEmergency = 800,
};

// "DEFAULT", "DEBUG", … "EMERGENCY".
std::string_view SeverityName(Severity severity);
// The severity named `name` (upper case, as the API spells it); nullopt for anything else.
std::optional<Severity> ParseSeverity(std::string_view name);

// Where entries come from: one file of records.
struct LogSource {
  std::string path;       // the records file
  std::string project;    // resource.labels.project_id
  std::string job_id;     // resource.labels.job_id
  std::string task_name;  // "master-replica-0", …, or "service" for the service's own messages
  std::string trial_id;   // hyperparameter-tuning trial ("3"), empty otherwise
  bool service = false;   // the service's messages: jsonPayload.message, no prefix detection
  // The activity audit log (store/audit_store.h): each text is a JSON object holding the entry's
  // protoPayload and resource; stdout records are NOTICE, stderr ones ERROR. task_name is the
  // log's id and job_id is empty.
  bool audit = false;
};

struct LogEntry {
  std::string timestamp;  // fixed width, as recorded (also receiveTimestamp)
  std::string insert_id;  // logs/log_record.h InsertId
  Severity severity = Severity::kDefault;
  std::string text;                   // the line, made valid UTF-8 (invalid bytes become U+FFFD)
  const LogSource* source = nullptr;  // job, task, trial; outlives the entry within a query
};

}  // namespace trainyard::logs
