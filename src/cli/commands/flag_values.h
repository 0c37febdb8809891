// Parsers for the values of `trainyard jobs submit training` flags, following gcloud 528's rules
// and messages (googlecloudsdk/calliope/arg_parsers.py ArgList/ArgDict/ArgBoolean/BoundedInt,
// command_lib/ml_engine/flags.py, command_lib/util/args/labels_util.py,
// api_lib/storage/storage_util.py). Each failure is INVALID_ARGUMENT whose message is the text
// gcloud prints after "argument --flag: ", kept on one line. Pure and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "model/job.h"

namespace trainyard::cli {

// gcloud ArgList: "a,b,c" -> {"a", "b", "c"}; "" -> {}.
std::vector<std::string> SplitList(std::string_view value);

// gcloud ArgDict: "k1=v1,k2=v2" -> ordered pairs. A value may contain '='; a later key wins.
Result<std::vector<std::pair<std::string, std::string>>> ParseDict(std::string_view value);

// `--master-accelerator type=nvidia-tesla-t4,count=4`. `type` is the catalog's flag spelling,
// matched as gcloud matches enum choices (case and '-'/'_' do not matter); `count` must be > 0.
Result<model::AcceleratorConfig> ParseAcceleratorSpec(std::string_view value,
                                                      const catalog::Catalog& catalog);

// `--labels k=v,...`: gcloud's label key and value rules.
Result<model::Labels> ParseLabels(std::string_view value);

// Every occurrence of a repeated label flag (`--labels`, `--update-labels`), merged as gcloud's
// UpdateAction merges dicts: within one value a later key wins; across occurrences a key may
// appear once. Messages start with "argument <flag>: ".
Result<model::Labels> MergeLabelFlags(const std::vector<std::string>& values,
                                      std::string_view flag);

// `--scale-tier basic|standard-1|premium-1|basic-gpu|basic-tpu|custom`.
Result<model::ScaleTier> ParseScaleTier(std::string_view value);

// gcloud BoundedInt(1, …): an integer >= 1 (`--worker-count` and the other replica counts,
// `jobs list --limit` and `--page-size`).
Result<std::int64_t> ParsePositiveInt(std::string_view value);

// `--use-chief-in-tf-config`: true, yes, false or no.
Result<bool> ParseBoolean(std::string_view value);

// `--service-account`: an e-mail address or a numeric unique id.
Status CheckServiceAccount(std::string_view value);

// A Cloud Storage bucket name ("bkt1"), by gcloud's naming checks.
Status CheckBucketName(std::string_view name);

// `--staging-bucket gs://bkt1[/]` -> "bkt1".
Result<std::string> ParseStagingBucket(std::string_view value);

// A gs:// object reference; `name` may be empty for "gs://bucket[/]" where allowed.
struct ObjectRef {
  std::string bucket;
  std::string name;

  std::string Url() const { return "gs://" + bucket + "/" + name; }
  friend bool operator==(const ObjectRef&, const ObjectRef&) = default;
};

// gcloud's ObjectReference.FromUrl: "gs://bucket/object"; "gs://bucket[/]" only when
// `allow_empty_object` (and then the bucket name is not checked, as in gcloud).
Result<ObjectRef> ParseObjectUrl(std::string_view url, bool allow_empty_object);

// Whether `path` names a Cloud Storage object (so `--packages` does not upload it). As in gcloud,
// "gs://b/x.tar.gz" is *not* one: "b" is not a valid bucket name, so it counts as a local path.
bool IsStorageUrl(std::string_view path);

}  // namespace trainyard::cli
