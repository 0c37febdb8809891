// How the jobs verbs show jobs, in gcloud 528's formats (surface/ai_platform/jobs/*.py,
// command_lib/ml_engine/jobs_util.py): the whole resource for `describe`, the table of `list`,
// and the short summary `submit training` prints. Times shown to users are local, as gcloud's
// `.date(tz=LOCAL)`; the conversion is a parameter so tests can fix the zone. Pure apart from
// `LocalDate`, which reads the process's time zone.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "model/job.h"

namespace trainyard::cli {

// Formats a time for display: "%Y-%m-%dT%H:%M:%S" in some time zone.
using DateFormatter = std::function<std::string(WallTime)>;

// gcloud's `date(tz=LOCAL)`, in the time zone of this process ($TZ, /etc/localtime).
std::string LocalDate(WallTime time);

enum class JobFormat { kYaml, kJson };

// `--format yaml|json` of `jobs describe`; INVALID_ARGUMENT for anything else.
Result<JobFormat> ParseJobFormat(std::string_view name);

// The whole resource: YAML as gcloud prints it by default (keys sorted, yaml_printer.h), or JSON
// as `--format json` (keys sorted, two-space indents). Ends with a newline.
std::string FormatJob(const model::Job& job, JobFormat format);

// `table(jobId.basename(), state:label=STATUS, createTime.date(tz=LOCAL):label=CREATED)`.
// Only the header when `jobs` is empty.
std::string FormatJobsTable(const std::vector<model::Job>& jobs, const DateFormatter& date);

// `yaml(jobId,state,startTime.date(tz=LOCAL),endTime.date(tz=LOCAL))`, the output of
// `submit training`; unset times are left out. Keys sorted, as gcloud prints them (endTime,
// jobId, startTime, state).
std::string FormatSubmittedJob(const model::Job& job, const DateFormatter& date);

}  // namespace trainyard::cli
