#include "control/job_view.h"

#include "run/view_paths.h"

namespace trainyard::control {

run::FileView JobView(const JobViewInput& input) {
  run::FileView view;
  view.hidden = input.data_dir;
  view.writable.push_back(input.job_root);
  if (!input.gcs_mount.empty()) {
    for (const std::string& bucket : input.project_buckets) {
      // Bucket names are checked at creation (no "/", never "." or ".."); an odd one is skipped
      // rather than shown as the whole store.
      if (!bucket.empty() && bucket != "." && bucket != ".." &&
          bucket.find('/') == std::string::npos) {
        view.writable.push_back(input.gcs_mount + "/" + bucket);
      }
    }
  }
  if (!input.job_dir.empty()) {
    view.writable.push_back(input.job_dir);  // dropped below when one of the project's buckets
  }
  if (!input.hp_metric_dir.empty()) {
    view.writable.push_back(input.hp_metric_dir);  // dropped below when below the root
  }
  view.readable = input.package_entries;
  for (const std::string& path : input.runtime_modules) {
    view.readable.push_back(path);
  }
  view.private_dirs = run::JobPrivateDirs(input.home);
  view.private_root = input.private_root;
  return run::NormaliseView(view);
}

}  // namespace trainyard::control
