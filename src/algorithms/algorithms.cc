#include "algorithms/algorithms.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/check.h"
#include "base/embedded.h"

namespace trainyard::algorithms::data {
base::EmbeddedFiles Embedded();
}  // namespace trainyard::algorithms::data

namespace trainyard::algorithms {
namespace {

ArgumentType TypeOf(const std::string& word) {
  static constexpr std::pair<std::string_view, ArgumentType> kTypes[] = {
      {"bool", ArgumentType::kBool},       {"string", ArgumentType::kString},
      {"path", ArgumentType::kPath},       {"int", ArgumentType::kInt},
      {"float", ArgumentType::kFloat},     {"enum", ArgumentType::kEnum},
      {"int_list", ArgumentType::kIntList}};
  for (const auto& [name, type] : kTypes) {
    if (name == word) {
      return type;
    }
  }
  TY_CHECK(false) << "builtin_algorithms.json: unknown argument type " << word;
  return ArgumentType::kString;
}

Argument ParseArgument(const nlohmann::json& entry) {
  Argument argument{.name = entry.at("name").get<std::string>(),
                    .type = TypeOf(entry.at("type").get<std::string>()),
                    .required = entry.value("required", false),
                    .default_value = entry.value("default", std::string()),
                    .min = std::nullopt,
                    .max = std::nullopt,
                    .exclusive_min = entry.value("exclusive_min", false),
                    .exclusive_max = entry.value("exclusive_max", false),
                    .values = entry.value("values", std::vector<std::string>()),
                    .tunable = entry.value("tunable", false)};
  if (entry.contains("min")) {
    argument.min = entry.at("min").get<double>();
  }
  if (entry.contains("max")) {
    argument.max = entry.at("max").get<double>();
  }
  return argument;
}

std::vector<Algorithm> Load() {
  const nlohmann::json doc = nlohmann::json::parse(data::Embedded().Get("builtin_algorithms.json"));
  std::vector<Algorithm> out;
  for (const nlohmann::json& entry : doc.at("algorithms")) {
    Algorithm algorithm{.name = entry.at("name").get<std::string>(),
                        .display_name = entry.at("display_name").get<std::string>(),
                        .images = entry.at("images").get<std::vector<std::string>>(),
                        .available = entry.at("available").get<bool>(),
                        .framework = entry.value("framework", std::string()),
                        .runtime_version = entry.value("runtime_version", std::string()),
                        .python_version = entry.value("python_version", std::string()),
                        .python = entry.value("python", std::string()),
                        .module = entry.value("module", std::string()),
                        .max_replicas = entry.value("max_replicas", 0),
                        .roles = entry.value("roles", std::vector<std::string>()),
                        .max_split_sum = entry.value("max_split_sum", 0.0),
                        .arguments = {}};
    for (const nlohmann::json& argument : entry.value("arguments", nlohmann::json::array())) {
      algorithm.arguments.push_back(ParseArgument(argument));
    }
    out.push_back(std::move(algorithm));
  }
  // `extends`: the other algorithm's arguments after its own, once every entry is read.
  for (std::size_t i = 0; i < out.size(); ++i) {
    const nlohmann::json& entry = doc.at("algorithms").at(i);
    if (!entry.contains("extends")) {
      continue;
    }
    const nlohmann::json& extends = entry.at("extends");
    const auto base =
        std::ranges::find(out, extends.at("algorithm").get<std::string>(), &Algorithm::name);
    TY_CHECK(base != out.end()) << "builtin_algorithms.json: " << out[i].name
                                << " extends an unknown algorithm";
    const auto without = extends.value("without", std::vector<std::string>());
    std::vector<Argument> inherited;
    for (const Argument& argument : base->arguments) {
      if (std::ranges::find(without, argument.name) == without.end() &&
          out[i].FindArgument(argument.name) == nullptr) {
        inherited.push_back(argument);
      }
    }
    out[i].arguments.insert(out[i].arguments.end(), inherited.begin(), inherited.end());
  }
  return out;
}

// "gcr.io/x/y:latest" -> "gcr.io/x/y"; a digest ("@sha256:…") goes too. A colon before the last
// slash is a registry's port, not a tag.
std::string_view Untagged(std::string_view image) {
  image = image.substr(0, image.find('@'));
  const std::size_t colon = image.rfind(':');
  const std::size_t slash = image.rfind('/');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    image = image.substr(0, colon);
  }
  return image;
}

}  // namespace

const Argument* Algorithm::FindArgument(std::string_view argument_name) const {
  const auto it = std::ranges::find(arguments, argument_name, &Argument::name);
  return it == arguments.end() ? nullptr : &*it;
}

const std::vector<Algorithm>& BuiltinAlgorithms() {
  static const std::vector<Algorithm> algorithms = Load();
  return algorithms;
}

const Algorithm* FindAlgorithm(std::string_view image_uri) {
  const std::string_view name = Untagged(image_uri);
  for (const Algorithm& algorithm : BuiltinAlgorithms()) {
    if (std::ranges::find(algorithm.images, name) != algorithm.images.end()) {
      return &algorithm;
    }
  }
  return nullptr;
}

}  // namespace trainyard::algorithms
