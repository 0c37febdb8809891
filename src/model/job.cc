#include "model/job.h"

namespace trainyard::model {

std::string_view JobStateName(JobState state) {
  switch (state) {
    case JobState::kUnspecified:
      return "STATE_UNSPECIFIED";
    case JobState::kQueued:
      return "QUEUED";
    case JobState::kPreparing:
      return "PREPARING";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kSucceeded:
      return "SUCCEEDED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelling:
      return "CANCELLING";
    case JobState::kCancelled:
      return "CANCELLED";
  }
  return "STATE_UNSPECIFIED";
}

std::string_view ScaleTierName(ScaleTier tier) {
  switch (tier) {
    case ScaleTier::kBasic:
      return "BASIC";
    case ScaleTier::kStandard1:
      return "STANDARD_1";
    case ScaleTier::kPremium1:
      return "PREMIUM_1";
    case ScaleTier::kBasicGpu:
      return "BASIC_GPU";
    case ScaleTier::kBasicTpu:
      return "BASIC_TPU";
    case ScaleTier::kCustom:
      return "CUSTOM";
  }
  return "BASIC";
}

std::string_view GoalTypeName(GoalType goal) {
  switch (goal) {
    case GoalType::kUnspecified:
      return "GOAL_TYPE_UNSPECIFIED";
    case GoalType::kMaximize:
      return "MAXIMIZE";
    case GoalType::kMinimize:
      return "MINIMIZE";
  }
  return "GOAL_TYPE_UNSPECIFIED";
}

std::string_view AlgorithmName(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kUnspecified:
      return "ALGORITHM_UNSPECIFIED";
    case Algorithm::kGridSearch:
      return "GRID_SEARCH";
    case Algorithm::kRandomSearch:
      return "RANDOM_SEARCH";
    case Algorithm::kPopulationBasedTraining:
      return "POPULATION_BASED_TRAINING";
  }
  return "ALGORITHM_UNSPECIFIED";
}

std::string_view ParameterTypeName(ParameterType type) {
  switch (type) {
    case ParameterType::kUnspecified:
      return "PARAMETER_TYPE_UNSPECIFIED";
    case ParameterType::kDouble:
      return "DOUBLE";
    case ParameterType::kInteger:
      return "INTEGER";
    case ParameterType::kCategorical:
      return "CATEGORICAL";
    case ParameterType::kDiscrete:
      return "DISCRETE";
  }
  return "PARAMETER_TYPE_UNSPECIFIED";
}

std::string_view ScaleTypeName(ScaleType type) {
  switch (type) {
    case ScaleType::kNone:
      return "NONE";
    case ScaleType::kUnitLinearScale:
      return "UNIT_LINEAR_SCALE";
    case ScaleType::kUnitLogScale:
      return "UNIT_LOG_SCALE";
    case ScaleType::kUnitReverseLogScale:
      return "UNIT_REVERSE_LOG_SCALE";
  }
  return "NONE";
}

std::string_view SchedulingStrategyName(SchedulingStrategy strategy) {
  switch (strategy) {
    case SchedulingStrategy::kUnspecified:
      return "STRATEGY_UNSPECIFIED";
    case SchedulingStrategy::kOnDemand:
      return "ON_DEMAND";
    case SchedulingStrategy::kLowCost:
      return "LOW_COST";
  }
  return "STRATEGY_UNSPECIFIED";
}

bool IsTerminal(JobState state) {
  return state == JobState::kSucceeded || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

bool IsSuspended(const Job& job) {
  return job.extras.has_value() && job.extras->suspended;
}

}  // namespace trainyard::model
