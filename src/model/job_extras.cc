#include "model/job_extras.h"

#include <array>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "model/job.h"
#include "model/job_extras_json.h"

namespace trainyard::model {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr std::array<std::pair<RestartRule, std::string_view>, 5> kRestartRules = {{
    {RestartRule::kAiPlatform, ""},
    {RestartRule::kNever, "Never"},
    {RestartRule::kOnFailure, "OnFailure"},
    {RestartRule::kAlways, "Always"},
    {RestartRule::kExitCode, "ExitCode"},
}};

std::optional<RestartRule> RestartRuleOf(std::string_view name) {
  for (const auto& [rule, spelling] : kRestartRules) {
    if (spelling == name) {
      return rule;
    }
  }
  return std::nullopt;
}

ordered_json EncodeRole(const RoleExtras& role) {
  ordered_json out = ordered_json::object();
  if (!role.env.empty()) {
    ordered_json env = ordered_json::array();
    for (const auto& [name, value] : role.env) {
      env.push_back({{"name", name}, {"value", value}});
    }
    out["env"] = std::move(env);
  }
  if (role.args.has_value()) {
    out["args"] = *role.args;
  }
  if (!role.working_dir.empty()) {
    out["workingDir"] = role.working_dir;
  }
  if (role.restart != RestartRule::kAiPlatform) {
    out["restart"] = RestartRuleName(role.restart);
  }
  if (!role.node_selector.empty()) {
    out["nodeSelector"] = role.node_selector;
  }
  return out;
}

RoleExtras DecodeRole(const json& in) {
  RoleExtras role;
  for (const json& pair : in.value("env", json::array())) {
    role.env.emplace_back(pair.at("name").get<std::string>(), pair.at("value").get<std::string>());
  }
  if (const auto it = in.find("args"); it != in.end()) {
    role.args = it->get<std::vector<std::string>>();
  }
  role.working_dir = in.value("workingDir", "");
  const std::optional<RestartRule> rule = RestartRuleOf(in.value("restart", ""));
  if (!rule.has_value()) {
    throw std::invalid_argument("unknown restart rule " + in.value("restart", ""));
  }
  role.restart = *rule;
  role.node_selector = in.value("nodeSelector", std::map<std::string, std::string>{});
  return role;
}

constexpr std::array<std::pair<std::string_view, RoleExtras JobExtras::*>, 4> kRoles = {{
    {"master", &JobExtras::master},
    {"worker", &JobExtras::worker},
    {"parameterServer", &JobExtras::parameter_server},
    {"evaluator", &JobExtras::evaluator},
}};

GoalType GoalOf(const std::string& name) {
  for (const GoalType goal : {GoalType::kMaximize, GoalType::kMinimize}) {
    if (GoalTypeName(goal) == name) {
      return goal;
    }
  }
  throw std::invalid_argument("unknown goal " + name);
}

}  // namespace

std::string_view RestartRuleName(RestartRule rule) {
  for (const auto& [value, spelling] : kRestartRules) {
    if (value == rule) {
      return spelling;
    }
  }
  return "";
}

std::string_view SuccessRuleName(SuccessRule rule) {
  return rule == SuccessRule::kAllWorkers ? "AllWorkers" : "";
}

namespace internal {

ordered_json EncodeExtrasValue(const JobExtras& extras) {
  ordered_json out = ordered_json::object();
  for (const auto& [name, member] : kRoles) {
    if (ordered_json role = EncodeRole(extras.*member); !role.empty()) {
      out[name] = std::move(role);
    }
  }
  if (extras.kubeflow.has_value()) {
    out["kubeflow"] = {{"jobName", extras.kubeflow->job_name},
                       {"namespace", extras.kubeflow->namespace_name},
                       {"primaryType", extras.kubeflow->primary_type}};
  }
  if (extras.success != SuccessRule::kPrimary) {
    out["success"] = SuccessRuleName(extras.success);
  }
  if (extras.backoff_limit.has_value()) {
    out["backoffLimit"] = *extras.backoff_limit;
  }
  if (extras.restart_all_on_failure) {
    out["restartAllOnFailure"] = true;
  }
  if (extras.suspended) {
    out["suspended"] = true;
  }
  if (extras.resumed) {
    out["resumed"] = true;
  }
  if (!extras.priority_class.empty()) {
    out["priorityClass"] = extras.priority_class;
  }
  if (extras.best_measurement) {
    out["bestMeasurement"] = true;
  }
  if (!extras.parameter_conditions.empty()) {
    ordered_json conditions = ordered_json::array();
    for (const ParameterCondition& condition : extras.parameter_conditions) {
      conditions.push_back({{"parameter", condition.parameter},
                            {"parent", condition.parent},
                            {"parentValues", condition.parent_values},
                            {"parentCategories", condition.parent_categories}});
    }
    out["parameterConditions"] = std::move(conditions);
  }
  if (!extras.extra_metrics.empty()) {
    ordered_json metrics = ordered_json::array();
    for (const StudyMetric& metric : extras.extra_metrics) {
      metrics.push_back({{"id", metric.id}, {"goal", GoalTypeName(metric.goal)}});
    }
    out["extraMetrics"] = std::move(metrics);
  }
  if (!extras.trial_measurements.empty()) {
    ordered_json measurements = ordered_json::array();
    for (const TrialMeasurement& measurement : extras.trial_measurements) {
      measurements.push_back({{"trial", measurement.trial_id}, {"values", measurement.values}});
    }
    out["trialMeasurements"] = std::move(measurements);
  }
  if (extras.kube.has_value()) {
    const KubeObject& kube = *extras.kube;
    ordered_json object = {{"kind", kube.kind},
                           {"apiVersion", kube.api_version},
                           {"name", kube.name},
                           {"namespace", kube.namespace_name},
                           {"uid", kube.uid},
                           {"document", kube.document},
                           {"generation", kube.generation}};
    if (kube.deletion_time.has_value()) {
      object["deletionTime"] = FormatTimestamp(*kube.deletion_time);
    }
    out["kube"] = std::move(object);
  }
  if (extras.vertex.has_value()) {
    const VertexResource& vertex = *extras.vertex;
    out["vertex"] = {{"kind", vertex.kind},
                     {"location", vertex.location},
                     {"displayName", vertex.display_name},
                     {"document", vertex.document},
                     {"baseOutputDirectory", vertex.base_output_directory}};
  }
  return out;
}

Result<JobExtras> DecodeExtrasValue(const json& in) {
  try {
    JobExtras extras;
    for (const auto& [name, member] : kRoles) {
      if (const auto it = in.find(name); it != in.end()) {
        extras.*member = DecodeRole(*it);
      }
    }
    if (const auto it = in.find("kubeflow"); it != in.end()) {
      extras.kubeflow = KubeflowNaming{.job_name = it->at("jobName").get<std::string>(),
                                       .namespace_name = it->at("namespace").get<std::string>(),
                                       .primary_type = it->at("primaryType").get<std::string>()};
    }
    extras.success =
        in.value("success", "") == "AllWorkers" ? SuccessRule::kAllWorkers : SuccessRule::kPrimary;
    if (const auto it = in.find("backoffLimit"); it != in.end()) {
      extras.backoff_limit = it->get<std::int32_t>();
    }
    extras.restart_all_on_failure = in.value("restartAllOnFailure", false);
    extras.suspended = in.value("suspended", false);
    extras.resumed = in.value("resumed", false);
    extras.priority_class = in.value("priorityClass", "");
    extras.best_measurement = in.value("bestMeasurement", false);
    for (const json& condition : in.value("parameterConditions", json::array())) {
      extras.parameter_conditions.push_back(ParameterCondition{
          .parameter = condition.at("parameter").get<std::string>(),
          .parent = condition.at("parent").get<std::string>(),
          .parent_values = condition.at("parentValues").get<std::vector<double>>(),
          .parent_categories = condition.at("parentCategories").get<std::vector<std::string>>()});
    }
    for (const json& metric : in.value("extraMetrics", json::array())) {
      extras.extra_metrics.push_back(
          StudyMetric{.id = metric.at("id").get<std::string>(),
                      .goal = GoalOf(metric.at("goal").get<std::string>())});
    }
    for (const json& measurement : in.value("trialMeasurements", json::array())) {
      extras.trial_measurements.push_back(
          TrialMeasurement{.trial_id = measurement.at("trial").get<std::string>(),
                           .values = measurement.at("values").get<std::vector<double>>()});
    }
    if (const auto it = in.find("kube"); it != in.end()) {
      KubeObject kube;
      kube.kind = it->at("kind").get<std::string>();
      kube.api_version = it->at("apiVersion").get<std::string>();
      kube.name = it->at("name").get<std::string>();
      kube.namespace_name = it->at("namespace").get<std::string>();
      kube.uid = it->at("uid").get<std::string>();
      kube.document = it->at("document").get<std::string>();
      kube.generation = it->at("generation").get<std::int64_t>();
      if (const auto deleted = it->find("deletionTime"); deleted != it->end()) {
        kube.deletion_time = ParseTimestamp(deleted->get<std::string>());
        if (!kube.deletion_time.has_value()) {
          return Status::InvalidArgument("malformed job extras: a bad deletionTime");
        }
      }
      extras.kube = std::move(kube);
    }
    if (const auto it = in.find("vertex"); it != in.end()) {
      extras.vertex =
          VertexResource{.kind = it->at("kind").get<std::string>(),
                         .location = it->at("location").get<std::string>(),
                         .display_name = it->at("displayName").get<std::string>(),
                         .document = it->at("document").get<std::string>(),
                         .base_output_directory = it->at("baseOutputDirectory").get<std::string>()};
    }
    return extras;
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("malformed job extras: ") + e.what());
  }
}

}  // namespace internal
}  // namespace trainyard::model
