// The suggester of a study with conditional parameters (tuning/conditional_space.h). Pure.
//
// Any algorithm runs on the flat space; what it suggests is made canonical (each inactive
// parameter at its stand-in, `Complete(Restrict(point))`), the form trials are read back in, so
// two suggestions that give a trial the same parameters are one point. A suggestion whose
// canonical form was tried already (a grid point that differs only in an inactive parameter) is
// passed over: the algorithm is asked again with it counted as running.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "base/status.h"
#include "model/job.h"
#include "tuning/conditional_space.h"
#include "tuning/suggest.h"

namespace trainyard::tuning {

// MakeSuggester over `space.flat()`, with its suggestions made canonical. Without conditions it is
// MakeSuggester's suggester itself. `extra_goals` are a multi-objective study's metrics after
// the first (whose goal is `goal`): the Gaussian-process search then runs on scalarised
// histories (tuning/multi_objective.h); grid and random search do not look at metrics.
Result<std::unique_ptr<Suggester>> MakeStudySuggester(
    const ConditionalSpace& space, model::Algorithm algorithm, model::GoalType goal,
    std::uint64_t seed, std::span<const model::GoalType> extra_goals = {});

// The seed of the study of job `job_id` in `project`: fixed per job, so a study is reproducible
// (a resumed or recovered study suggests as it would have). The FNV-1a hash (base/fnv1a.h) of
// "<project>/<job id>", the same on every server since studies were first seeded: do not change it.
std::uint64_t StudySeed(std::string_view project, std::string_view job_id);

}  // namespace trainyard::tuning
