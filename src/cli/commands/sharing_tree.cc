#include "cli/commands/sharing_tree.h"

#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/client/rest_client.h"
#include "cli/commands/commands.h"
#include "cli/output/error_output.h"
#include "cli/output/table.h"

namespace trainyard::cli {
namespace {

using Json = nlohmann::json;

// The flags of every verb here: the server and the token, no project (the verbs name it).
struct ServerFlags {
  std::optional<std::string> server;
  std::optional<std::string> token_file;
  std::optional<std::string> ca_file;

  void AddTo(CLI::App& command) {
    AddValueFlag(command, "--server", server,
                 "URL of the trainyard server (default: $TRAINYARD_SERVER, else "
                 "http://127.0.0.1:8470/).");
    AddValueFlag(command, "--token-file", token_file,
                 "File holding the access token to send (default: $TRAINYARD_TOKEN); changes need "
                 "an admin's.");
    AddValueFlag(command, "--ca-file", ca_file,
                 "CA certificates (PEM) an https server's certificate must chain to.");
  }

  ApiTarget Resolve(const Environment& env) const {
    return {.server = ResolveServer(server, env),
            .project = "",
            .token_file = token_file,
            .token = env.token,
            .ca_file = ca_file.value_or(env.ca_file.value_or(""))};
  }
};

// A whole number as JSON, else the text as given (the server says what is wrong with it).
Json Number(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc() && end == text.data() + text.size() && !text.empty()) {
    return value;
  }
  return text;
}

std::string QuotaPath(const std::string& project) {
  return "trainyard/v1/projects/" + PercentEncode(project) + "/quota";
}

// "NVIDIA_TESLA_T4=4, cpus 64, memory 256Gi, jobs 20" for a quota's limits; "-" for none.
std::string Limits(const Json& quota) {
  std::vector<std::string> parts;
  const Json accelerators = quota.value("accelerators", Json::object());
  for (const auto& [name, count] : accelerators.items()) {
    parts.push_back(fmt::format("{}={}", name, count.dump()));
  }
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ","));
}

std::string Field(const Json& quota, const char* key) {
  const auto found = quota.find(key);
  if (found == quota.end()) {
    return "-";
  }
  return found->is_string() ? found->get<std::string>() : found->dump();
}

void PrintQuota(const Json& quota, std::ostream& out) {
  out << "project: " << quota.value("project", "") << "\n";
  out << "accelerators:";
  const Json accelerators = quota.value("accelerators", Json::object());
  out << (accelerators.empty() ? " {}\n" : "\n");
  for (const auto& [name, count] : accelerators.items()) {
    out << "  " << name << ": " << count.dump() << "\n";
  }
  for (const char* key : {"cpus", "memory", "jobs"}) {
    out << key << ": " << (quota.contains(key) ? Field(quota, key) : "unlimited") << "\n";
  }
  out << "weight: " << Field(quota, "weight") << "\n";
}

// Calls the server; prints the error as `command` and returns nullopt on failure.
std::optional<Json> Call(const ApiTarget& target, std::string_view command, std::string_view method,
                         const std::string& path, std::ostream& err, const std::string& body = {}) {
  const std::optional<RestClient> rest = Connect(target, command, err);
  if (!rest) {
    return std::nullopt;
  }
  Result<std::string> answer = rest->Call(method, path, body);
  if (!answer.ok()) {
    PrintApiError(err, command, answer.status());
    return std::nullopt;
  }
  Json parsed = Json::parse(*answer, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    PrintError(err, command, "the server's answer is not JSON");
    return std::nullopt;
  }
  return parsed;
}

}  // namespace

struct SharingTree::Verbs {
  CLI::App* quota_set = nullptr;
  ServerFlags quota_set_flags;
  std::string quota_set_project;
  std::vector<std::string> accelerators;
  std::optional<std::string> cpus;
  std::optional<std::string> memory;
  std::optional<std::string> jobs;
  std::optional<std::string> weight;

  CLI::App* quota_list = nullptr;
  ServerFlags quota_list_flags;
  CLI::App* quota_describe = nullptr;
  ServerFlags quota_describe_flags;
  std::string quota_describe_project;
  CLI::App* quota_delete = nullptr;
  ServerFlags quota_delete_flags;
  std::string quota_delete_project;

  CLI::App* class_set = nullptr;
  ServerFlags class_set_flags;
  std::string class_set_name;
  std::string class_set_value;
  CLI::App* class_list = nullptr;
  ServerFlags class_list_flags;
  CLI::App* class_delete = nullptr;
  ServerFlags class_delete_flags;
  std::string class_delete_name;
};

SharingTree::SharingTree(CLI::App& app) : verbs_(std::make_unique<Verbs>()) {
  Verbs& v = *verbs_;
  CLI::App* quota = app.add_subcommand(
      "quota", "Set, list, describe and delete projects' quotas and fair-share weights (admin).");
  quota->require_subcommand(1);
  v.quota_set = quota->add_subcommand(
      "set",
      "Replace a project's quota: what its jobs may hold at once. A limit not given is no limit; "
      "a job that can never fit the quota is refused when it is created.");
  v.quota_set->add_option("project", v.quota_set_project, "The project.")->required();
  AddRepeatedFlag(*v.quota_set, "--accelerator", v.accelerators,
                  "TYPE=N: at most N devices of accelerator TYPE (catalog names, e.g. "
                  "NVIDIA_TESLA_T4=4); may be repeated. 0 allows none.");
  AddValueFlag(*v.quota_set, "--cpus", v.cpus, "At most N vCPUs (the machine types').");
  AddValueFlag(*v.quota_set, "--memory", v.memory, "At most this much memory, e.g. 256Gi.");
  AddValueFlag(*v.quota_set, "--jobs", v.jobs, "At most N jobs holding resources.");
  AddValueFlag(*v.quota_set, "--weight", v.weight,
               "The project's fair share relative to the others' (default 1).");
  v.quota_set_flags.AddTo(*v.quota_set);
  v.quota_list = quota->add_subcommand("list", "List the projects' quotas and weights.");
  v.quota_list_flags.AddTo(*v.quota_list);
  v.quota_describe = quota->add_subcommand("describe", "Show a project's quota and weight.");
  v.quota_describe->add_option("project", v.quota_describe_project, "The project.")->required();
  v.quota_describe_flags.AddTo(*v.quota_describe);
  v.quota_delete = quota->add_subcommand(
      "delete", "Remove a project's quota (then it has no limits and weight 1).");
  v.quota_delete->add_option("project", v.quota_delete_project, "The project.")->required();
  v.quota_delete_flags.AddTo(*v.quota_delete);

  CLI::App* classes = app.add_subcommand(
      "priority-class",
      "Name priorities (a TFJob's schedulingPolicy.priorityClass) as ml v1 scheduling.priority "
      "values (admin).");
  classes->require_subcommand(1);
  v.class_set = classes->add_subcommand("set", "Set priority class NAME to VALUE (0 to 1000).");
  v.class_set->add_option("name", v.class_set_name, "The class's name.")->required();
  v.class_set->add_option("value", v.class_set_value, "Its priority, 0 to 1000.")->required();
  v.class_set_flags.AddTo(*v.class_set);
  v.class_list = classes->add_subcommand("list", "List the priority classes.");
  v.class_list_flags.AddTo(*v.class_list);
  v.class_delete = classes->add_subcommand("delete", "Remove a priority class.");
  v.class_delete->add_option("name", v.class_delete_name, "The class's name.")->required();
  v.class_delete_flags.AddTo(*v.class_delete);
}

SharingTree::~SharingTree() = default;

std::optional<int> SharingTree::Run(const Environment& env, std::ostream& out, std::ostream& err) {
  Verbs& v = *verbs_;
  if (v.quota_set->parsed()) {
    constexpr std::string_view kCommand = "trainyard.quota.set";
    Json body = Json::object();
    if (!v.accelerators.empty()) {
      body["accelerators"] = Json::object();
    }
    for (const std::string& item : v.accelerators) {
      const std::size_t equals = item.find('=');
      if (equals == std::string::npos || equals == 0) {
        PrintError(
            err, kCommand,
            "argument --accelerator: expected TYPE=N, e.g. NVIDIA_TESLA_T4=4, got '" + item + "'");
        return 1;
      }
      body["accelerators"][item.substr(0, equals)] = Number(item.substr(equals + 1));
    }
    for (const auto& [key, value] :
         {std::pair{"cpus", &v.cpus}, std::pair{"jobs", &v.jobs}, std::pair{"weight", &v.weight}}) {
      if (*value) {
        body[key] = Number(**value);
      }
    }
    if (v.memory) {
      body["memory"] = *v.memory;
    }
    const std::optional<Json> stored = Call(v.quota_set_flags.Resolve(env), kCommand, "PUT",
                                            QuotaPath(v.quota_set_project), err, body.dump());
    if (!stored) {
      return 1;
    }
    PrintQuota(*stored, out);
    return 0;
  }
  if (v.quota_list->parsed()) {
    const std::optional<Json> policy = Call(v.quota_list_flags.Resolve(env), "trainyard.quota.list",
                                            "GET", "trainyard/v1/sharing", err);
    if (!policy) {
      return 1;
    }
    std::vector<std::vector<std::string>> rows;
    const Json projects = policy->value("projects", Json::array());
    for (const Json& quota : projects) {
      rows.push_back({quota.value("project", ""), Limits(quota), Field(quota, "cpus"),
                      Field(quota, "memory"), Field(quota, "jobs"), Field(quota, "weight")});
    }
    out << FormatTable({"PROJECT", "ACCELERATORS", "CPUS", "MEMORY", "JOBS", "WEIGHT"}, rows);
    return 0;
  }
  if (v.quota_describe->parsed()) {
    const std::optional<Json> quota =
        Call(v.quota_describe_flags.Resolve(env), "trainyard.quota.describe", "GET",
             QuotaPath(v.quota_describe_project), err);
    if (!quota) {
      return 1;
    }
    PrintQuota(*quota, out);
    return 0;
  }
  if (v.quota_delete->parsed()) {
    return Call(v.quota_delete_flags.Resolve(env), "trainyard.quota.delete", "DELETE",
                QuotaPath(v.quota_delete_project), err)
               ? 0
               : 1;
  }
  if (v.class_set->parsed()) {
    const std::string body = Json{{"value", Number(v.class_set_value)}}.dump();
    return Call(v.class_set_flags.Resolve(env), "trainyard.priority-class.set", "PUT",
                "trainyard/v1/priorityClasses/" + PercentEncode(v.class_set_name), err, body)
               ? 0
               : 1;
  }
  if (v.class_list->parsed()) {
    const std::optional<Json> classes =
        Call(v.class_list_flags.Resolve(env), "trainyard.priority-class.list", "GET",
             "trainyard/v1/priorityClasses", err);
    if (!classes) {
      return 1;
    }
    std::vector<std::vector<std::string>> rows;
    const Json listed = classes->value("priorityClasses", Json::object());
    for (const auto& [name, value] : listed.items()) {
      rows.push_back({name, value.dump()});
    }
    out << FormatTable({"NAME", "VALUE"}, rows);
    return 0;
  }
  if (v.class_delete->parsed()) {
    return Call(v.class_delete_flags.Resolve(env), "trainyard.priority-class.delete", "DELETE",
                "trainyard/v1/priorityClasses/" + PercentEncode(v.class_delete_name), err)
               ? 0
               : 1;
  }
  return std::nullopt;
}

}  // namespace trainyard::cli
