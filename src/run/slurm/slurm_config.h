// The Slurm backend's configuration: `trainyard serve --backend slurm --slurm-config FILE`, a
// YAML file written by the cluster's operator (all keys optional):
//
//   partition: gpu               # the partition jobs go to ("" or absent: Slurm's default)
//   partitions_by_priority:      # scheduling.priority -> partition: the rule with the highest
//     - min_priority: 500        #   min_priority <= the job's priority wins; none: `partition`
//       partition: high
//   gres_types:                  # catalog accelerator -> GRES type (--gres=gpu:<type>:<n>);
//     NVIDIA_TESLA_T4: t4        #   an accelerator not listed is asked for untyped (gpu:<n>)
//   requeue: true                # --requeue (default) or --no-requeue
//   finished_jobs: sacct         # how a job squeue has forgotten is read: sacct (slurmdbd),
//                                #   jobcomp (`sacct -c`, JobCompType=jobcomp/filetxt), none
//   ports: {first: 20000, count: 10000}   # replicas' cluster ports are picked in this range
//   node_addresses:              # node name -> address replicas reach it at; a node not listed
//     n1: 127.0.0.1              #   is looked up with `scontrol show node` (NodeAddr)
//   sbatch_options: ["--account=ml"]      # added to every job (before the components)
//
// Pure: parsing only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"

namespace trainyard::run::slurm {

struct PartitionRule {
  std::int32_t min_priority = 0;
  std::string partition;
  bool operator==(const PartitionRule&) const = default;
};

enum class FinishedJobs { kSacct, kJobcomp, kNone };

struct SlurmConfig {
  std::string partition;
  std::vector<PartitionRule> partitions_by_priority;
  std::map<std::string, std::string, std::less<>> gres_types;
  bool requeue = true;
  FinishedJobs finished_jobs = FinishedJobs::kSacct;
  int first_port = 20000;
  int port_count = 10000;
  std::map<std::string, std::string, std::less<>> node_addresses;
  std::vector<std::string> sbatch_options;
  bool operator==(const SlurmConfig&) const = default;
};

// INVALID_ARGUMENT with a violation per problem, each naming its path ("ports.first",
// "gres_types.FOO", "partitions_by_priority[1].min_priority"): unknown keys, wrong types,
// accelerators the catalog does not know, GRES types or partition names that are not
// [A-Za-z0-9_.-]+ (the top-level `partition` may also be ""), priorities outside 0..1000, two
// rules with one min_priority, a rule without both keys, ports outside 1024..65535 (first +
// count - 1 included), count < 1, sbatch options that do not start with "--" or hold whitespace
// (a newline included), node names that are not [A-Za-z0-9_.-]+ or addresses that are empty or
// hold whitespace. A null value of a list or mapping key is an empty one. A file that is not YAML,
// or not a mapping, is INVALID_ARGUMENT (naming the line). An empty file is the defaults.
Result<SlurmConfig> ParseSlurmConfig(std::string_view yaml_text, const catalog::Catalog& catalog);

// Whether `text` is a Slurm partition, GRES type or job name: [A-Za-z0-9_.-]+.
bool IsSlurmName(std::string_view text);

// The partition for a job of `priority` ("" = Slurm's default).
std::string PartitionFor(std::int32_t priority, const SlurmConfig& config);

// "finished_jobs" words: "sacct", "jobcomp", "none".
std::string_view FinishedJobsName(FinishedJobs value);

}  // namespace trainyard::run::slurm
