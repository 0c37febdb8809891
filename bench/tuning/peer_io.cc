#include "peer_io.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "hypervolume.h"

namespace trainyard::bench {
namespace {

std::string_view TypeName(model::ParameterType type) {
  switch (type) {
    case model::ParameterType::kDouble:
      return "DOUBLE";
    case model::ParameterType::kInteger:
      return "INTEGER";
    case model::ParameterType::kDiscrete:
      return "DISCRETE";
    case model::ParameterType::kCategorical:
      return "CATEGORICAL";
    case model::ParameterType::kUnspecified:
      break;
  }
  return "UNSPECIFIED";
}

std::string_view ScaleName(model::ScaleType scale) {
  switch (scale) {
    case model::ScaleType::kUnitLogScale:
      return "LOG";
    case model::ScaleType::kUnitReverseLogScale:
      return "REVERSE_LOG";
    case model::ScaleType::kNone:
    case model::ScaleType::kUnitLinearScale:
      break;
  }
  return "LINEAR";
}

bool ParseDouble(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

// A CATEGORICAL value of `full` (in the order of the parameters) that is none of its
// parameter's categories, as a message, or "". Numbers are not held to their ranges: Optuna's
// log-scaled values can lie an ulp outside them (exp(log(1e-5)) < 1e-5).
std::string UnknownCategory(const TestFunction& function, const tuning::Assignment& full) {
  for (std::size_t i = 0; i < full.size(); ++i) {
    const std::vector<std::string>& categories = function.params[i].categorical_values;
    if (!categories.empty() &&
        std::ranges::find(categories, full[i].category) == categories.end()) {
      return fmt::format("parameter {}: '{}' is not one of its values", full[i].name,
                         full[i].category);
    }
  }
  return "";
}

}  // namespace

std::string DescribeJson(const std::vector<const TestFunction*>& functions) {
  std::string out = "[";
  for (const TestFunction* function : functions) {
    out += fmt::format(R"({}{{"name": "{}", "label": "{}", "minimum": {:.17g}, "noise": {:g}, )",
                       out.size() > 1 ? ",\n " : "", function->name, function->label,
                       function->minimum, function->noise);
    if (const std::optional<TwoObjectives>& two = function->two_objectives) {
      out += fmt::format(R"("objectives": 2, "reference": [{:.17g}, {:.17g}], )"
                         R"("max_hypervolume": {:.17g}, )",
                         two->reference[0], two->reference[1], two->max_hypervolume);
    }
    out += R"("params": [)";
    for (std::size_t i = 0; i < function->params.size(); ++i) {
      const model::ParameterSpec& param = function->params[i];
      out += fmt::format(R"({}{{"name": "{}", "type": "{}", "scale": "{}")", i > 0 ? ", " : "",
                         param.parameter_name, TypeName(param.type), ScaleName(param.scale_type));
      if (param.min_value && param.max_value) {
        out +=
            fmt::format(R"(, "min": {:.17g}, "max": {:.17g})", *param.min_value, *param.max_value);
      }
      if (!param.discrete_values.empty()) {
        out += fmt::format(R"(, "values": [{}])", fmt::join(param.discrete_values, ", "));
      }
      if (!param.categorical_values.empty()) {
        out += fmt::format(R"(, "values": ["{}"])", fmt::join(param.categorical_values, R"(", ")"));
      }
      const auto condition = std::ranges::find(function->conditions, param.parameter_name,
                                               &model::ParameterCondition::parameter);
      if (condition != function->conditions.end()) {
        out += fmt::format(R"(, "condition": {{"parent": "{}", "values": )", condition->parent);
        out += condition->parent_categories.empty()
                   ? fmt::format("[{}]}}", fmt::join(condition->parent_values, ", "))
                   : fmt::format(R"(["{}"]}})", fmt::join(condition->parent_categories, R"(", ")"));
      }
      out += "}";
    }
    out += "]}";
  }
  return out + "]\n";
}

Status ServeEvaluations(const TestFunction& function, std::uint64_t seed, std::istream& in,
                        std::ostream& out) {
  Result<tuning::ConditionalSpace> space = SpaceFor(function);
  if (!space.ok()) {
    return space.status();
  }
  Observer observer(function, seed);
  const std::optional<TwoObjectives>& two = function.two_objectives;
  std::optional<HypervolumeRegret> hypervolume;
  if (two) {
    hypervolume.emplace(two->reference, two->max_hypervolume);
  }
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::pair<std::string, std::string>> given;
    for (const model::ParameterSpec& param : function.params) {
      std::string field;
      fields >> field;
      if (field != kAbsent) {
        given.emplace_back(param.parameter_name, field);
      }
    }
    // As the executor reads a trial back: the values must parse and every active parameter must
    // be there; values of inactive ones are dropped.
    Result<tuning::Assignment> full = space->Parse(given);
    const std::string error =
        full.ok() ? UnknownCategory(function, *full) : full.status().message();
    if (!error.empty()) {
      return Status::InvalidArgument(
          fmt::format("{}: line \"{}\": {}", function.name, line, error));
    }
    const std::vector<double> x = ArgumentsOf(function, space->Restrict(*full));
    const Observer::Value value = observer.Observe(x);
    out << fmt::format("{:.17g} {:.17g} {}", value.observed, value.truth,
                       OnBound(function, x) ? 1 : 0);
    if (hypervolume) {
      out << fmt::format(" {:.17g} {:.17g} {:.17g}", value.second, value.second,
                         hypervolume->Add({value.truth, value.second}));
    }
    out << "\n" << std::flush;
  }
  return {};
}

Result<std::vector<PeerCurves>> ReadPeerCurves(const std::string& path,
                                               const std::vector<const TestFunction*>& functions,
                                               int trials) {
  std::ifstream in(path);
  if (!in) {
    return Status::NotFound(fmt::format("cannot read {}", path));
  }
  std::vector<PeerCurves> out;
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::size_t>> seen;
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) {
      f.push_back(field);
    }
    TrialRecord record;
    double trial = 0;
    if (f.size() < 8 || !ParseDouble(f[3], trial) || !ParseDouble(f[4], record.regret) ||
        !ParseDouble(f[5], record.suggest_ms) || !ParseDouble(f[6], record.suggest_cpu_ms)) {
      return Status::InvalidArgument(fmt::format("{}: bad line \"{}\"", path, line));
    }
    record.on_bound = f[7] == "1";
    record.observed = static_cast<int>(trial) - 1;
    const TestFunction* function = nullptr;
    for (const TestFunction* known : functions) {
      if (known->name == f[0]) {
        function = known;
      }
    }
    if (function == nullptr || trial > trials) {
      continue;
    }
    auto& seeds = seen[{f[0], f[1]}];
    if (seeds.empty()) {
      out.push_back({.function = function, .algorithm = f[1], .curves = {}});
    }
    PeerCurves* set = nullptr;
    for (PeerCurves& candidate : out) {
      if (candidate.function == function && candidate.algorithm == f[1]) {
        set = &candidate;
      }
    }
    const auto [it, added] = seeds.try_emplace(f[2], set->curves.size());
    if (added) {
      set->curves.emplace_back();
    }
    set->curves[it->second].push_back(record);
  }
  for (const PeerCurves& set : out) {
    for (const std::vector<TrialRecord>& curve : set.curves) {
      if (std::cmp_not_equal(curve.size(), trials)) {
        return Status::InvalidArgument(fmt::format("{}: {} {} has a seed with {} of {} trials",
                                                   path, set.function->name, set.algorithm,
                                                   curve.size(), trials));
      }
    }
  }
  return out;
}

}  // namespace trainyard::bench
