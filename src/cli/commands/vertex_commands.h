// Internal to cli/: the `trainyard ai custom-jobs` and `ai hp-tuning-jobs` verbs against the
// server's aiplatform v1 API, as gcloud 528 runs them (surface/ai/custom_jobs, hp_tuning_jobs):
// create prints gcloud's "submitted successfully" text on stderr, describe the job as YAML, list
// each job as a YAML document ("---"), cancel gcloud's "Request to cancel …" text, stream-logs
// the rows of Vertex AI's log format. Unlike gcloud, `list --filter` is sent to the server,
// which filters (as `jobs list`). Each returns the exit code.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "cli/client/vertex_client.h"
#include "cli/commands/commands.h"
#include "cli/commands/vertex_flags.h"

namespace trainyard::cli {

// Where a Vertex verb goes: the server and project, and the region (--region, else
// $TRAINYARD_REGION; required, as in gcloud).
struct VertexTarget {
  ApiTarget api;
  std::optional<std::string> region;
};

int RunCustomJobCreate(const VertexTarget& target, const CustomJobFlags& flags,
                       const std::optional<std::string>& config_path, std::ostream& err);
int RunHpTuningJobCreate(const VertexTarget& target, const HpTuningJobFlags& flags,
                         const std::string& config_path, std::ostream& err);
int RunVertexDescribe(const VertexTarget& target, VertexKind kind, const std::string& job,
                      std::ostream& out, std::ostream& err);
int RunVertexList(const VertexTarget& target, VertexKind kind, const ListFlags& flags,
                  std::ostream& out, std::ostream& err);
int RunVertexCancel(const VertexTarget& target, VertexKind kind, const std::string& job,
                    std::ostream& err);
int RunVertexStreamLogs(const VertexTarget& target, VertexKind kind, const std::string& job,
                        const StreamLogsFlags& flags, bool stderr_is_tty, std::ostream& out,
                        std::ostream& err);

}  // namespace trainyard::cli
