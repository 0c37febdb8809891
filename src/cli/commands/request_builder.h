// Turns the flags of `jobs submit training` / `jobs validate` into the create request gcloud
// would send: flags parsed and checked (submit_flags.h), the `--config` file read, packages
// staged (packages.h), flags set over the file. The verbs decide what to do with the result
// (print it, validate it, send it), so a REST client only adds a sender.
// Reads files and may run `setup.py sdist`; holds no state between calls.
#pragma once

#include <string>

#include "base/status.h"
#include "catalog/catalog.h"
#include "cli/commands/request_body.h"
#include "cli/commands/submit_flags.h"
#include "cli/local/packages.h"
#include "model/job.h"

namespace trainyard::cli {

struct SubmitRequest {
  std::string project;  // POST /v1/projects/<project>/jobs
  model::Job job;
  ExplicitFields explicit_fields;
  StagedPackages packages;  // local files to upload before the create
  TrainingFlags flags;
};

class RequestBuilder {
 public:
  explicit RequestBuilder(const catalog::Catalog& catalog) : catalog_(catalog) {}

  // Errors are the one-line messages gcloud prints after "ERROR: (…) ".
  Result<SubmitRequest> Build(const RawTrainingFlags& raw) const;

 private:
  const catalog::Catalog& catalog_;
};

}  // namespace trainyard::cli
