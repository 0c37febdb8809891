// A scrambled Halton sequence: the Bayesian suggester's space-filling first trials. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainyard::tuning {

// Point `index` of a Halton sequence in [0, 1)^dims (coordinate j in base prime_j) whose digits
// are scrambled by random bijections, one per coordinate and digit position, drawn from `seed`
// (random linear scrambling). Any prefix of the sequence is spread evenly; different seeds give
// different, equally even sequences. A few operations per coordinate and digit, whatever the base.
std::vector<double> ScrambledHalton(std::uint64_t index, std::size_t dims, std::uint64_t seed);

}  // namespace trainyard::tuning
