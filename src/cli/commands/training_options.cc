// The CLI11 side of `jobs submit training` / `jobs validate`: flag names and help, filling a
// `RawTrainingFlags`, and the flag helpers every command tree uses. Values are checked later
// (submit_flags.h), so this file has no rules.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands/commands.h"

namespace trainyard::cli {
namespace {

// `role` is the flag prefix ("parameter-server"); `what` names the replicas in help text.
void AddReplicaFlags(CLI::App& command, const std::string& role, const std::string& what,
                     RawReplicaFlags& raw, bool counted, const std::string& note = "") {
  AddValueFlag(command, "--" + role + "-machine-type", raw.machine_type,
               "Machine type of the " + what + " (e.g. n1-standard-8, complex_model_m)." + note);
  if (counted) {
    AddValueFlag(command, "--" + role + "-count", raw.count,
                 "Number of " + what + "; needs --" + role + "-machine-type." + note);
  }
  AddValueFlag(command, "--" + role + "-accelerator", raw.accelerator,
               "Accelerators on each machine of the " + what +
                   ": type=TYPE,count=N (see `trainyard catalog accelerators`)." + note);
  AddValueFlag(command, "--" + role + "-image-uri", raw.image_uri,
               "Container image for the " + what + "." + note);
}

}  // namespace

void AddValueFlag(CLI::App& command, const std::string& name, std::optional<std::string>& target,
                  const std::string& help) {
  command
      .add_option_function<std::string>(
          name, [&target](const std::string& value) { target = value; }, help)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

void AddRepeatedFlag(CLI::App& command, const std::string& name, std::vector<std::string>& target,
                     const std::string& help) {
  command
      .add_option_function<std::vector<std::string>>(
          name,
          [&target](const std::vector<std::string>& values) {
            target.insert(target.end(), values.begin(), values.end());
          },
          help)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void AddTrainingFlags(CLI::App& command, RawTrainingFlags& raw,
                      std::optional<std::string>& project) {
  command.add_option("job", raw.job_id, "ID of the job.")->required();
  AddValueFlag(command, "--project", project,
               "Project to submit to (default: $TRAINYARD_PROJECT, else \"default\").");
  AddValueFlag(command, "--region", raw.region,
               "Region of the job (required; default: $TRAINYARD_REGION).");
  AddValueFlag(command, "--config", raw.config,
               "YAML or JSON file holding a Job resource; flags override its fields.");
  AddValueFlag(command, "--scale-tier", raw.scale_tier,
               "basic, standard-1, premium-1, basic-gpu, basic-tpu or custom.");
  AddReplicaFlags(command, "master", "master", raw.master, /*counted=*/false);
  AddReplicaFlags(command, "worker", "workers", raw.worker, /*counted=*/true);
  AddReplicaFlags(command, "parameter-server", "parameter servers", raw.parameter_server,
                  /*counted=*/true);
  AddReplicaFlags(command, "evaluator", "evaluators", raw.evaluator, /*counted=*/true,
                  " trainyard extension: gcloud has no evaluator flags.");
  AddValueFlag(command, "--tpu-tf-version", raw.tpu_tf_version,
               "TensorFlow runtime version of a custom container on the TPU worker (gcloud beta).");
  AddValueFlag(command, "--use-chief-in-tf-config", raw.use_chief_in_tf_config,
               "true or false: name the primary \"chief\" instead of \"master\" in TF_CONFIG.");
  AddValueFlag(command, "--job-dir", raw.job_dir,
               "gs:// directory for outputs; passed to the trainer as --job-dir.");
  AddValueFlag(command, "--module-name", raw.module_name, "Python module to run.");
  AddValueFlag(command, "--package-path", raw.package_path,
               "Local Python package directory to build with setup.py sdist and stage.");
  AddValueFlag(command, "--packages", raw.packages,
               "Comma-separated Python archives: gs:// objects or local files to stage.");
  AddValueFlag(command, "--staging-bucket", raw.staging_bucket,
               "gs://bucket to stage local packages in (default: under --job-dir).");
  AddValueFlag(command, "--runtime-version", raw.runtime_version, "AI Platform runtime version.");
  AddValueFlag(command, "--python-version", raw.python_version, "Python version (e.g. 3.7).");
  AddValueFlag(command, "--network", raw.network,
               "VPC network to peer with: projects/NUMBER/global/networks/NAME (gcloud beta).");
  AddValueFlag(command, "--service-account", raw.service_account,
               "E-mail address of the service account the job runs as.");
  AddRepeatedFlag(command, "--labels", raw.labels, "Labels KEY=VALUE,...; may be repeated.");
  AddValueFlag(
      command, "--kms-key", raw.kms_key,
      "Cloud KMS key: a full projects/…/cryptoKeys/… name, or an id with --kms-keyring and "
      "--kms-location.");
  AddValueFlag(command, "--kms-keyring", raw.kms_keyring, "Key ring of --kms-key.");
  AddValueFlag(command, "--kms-location", raw.kms_location, "Location of --kms-key.");
  AddValueFlag(command, "--kms-project", raw.kms_project,
               "Project of --kms-key (default: the job's project).");
  command.add_flag("--enable-web-access", raw.enable_web_access,
                   "Enable interactive shell access to the training containers.");
  command.add_flag("--async", raw.async, "(DEPRECATED) Return once the job is submitted.");
  command.add_flag("--stream-logs", raw.stream_logs,
                   "Block until the job ends, streaming its logs.");
  command.footer(
      "Everything after a bare `--` is passed to the trainer verbatim (trainingInput.args).");
}

}  // namespace trainyard::cli
