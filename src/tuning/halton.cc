#include "tuning/halton.h"

#include "tuning/random.h"

namespace trainyard::tuning {
namespace {

// Digits are taken until base^digits exceeds this (finer than any parameter needs).
constexpr double kResolution = 1e12;

// The first `count` primes.
std::vector<std::uint64_t> Primes(std::size_t count) {
  std::vector<std::uint64_t> primes;
  for (std::uint64_t candidate = 2; primes.size() < count; ++candidate) {
    bool prime = true;
    for (const std::uint64_t p : primes) {
      if (p * p > candidate) {
        break;
      }
      if (candidate % p == 0) {
        prime = false;
        break;
      }
    }
    if (prime) {
      primes.push_back(candidate);
    }
  }
  return primes;
}

}  // namespace

std::vector<double> ScrambledHalton(std::uint64_t index, std::size_t dims, std::uint64_t seed) {
  const std::vector<std::uint64_t> primes = Primes(dims);
  std::vector<double> point(dims);
  for (std::size_t j = 0; j < dims; ++j) {
    const std::uint64_t base = primes[j];
    // Each digit position t maps digit a to (m_t a + c_t) mod base, a bijection as base is prime
    // and m_t > 0 (Matousek's random linear scrambling with a digital shift). Positions past
    // the index's own digits scramble zeros, so no coordinate is exactly 0.
    Rng rng(MixSeed({seed, j}));
    std::uint64_t rest = index;
    double weight = 1;
    double value = 0;
    while (weight * kResolution > 1) {
      const std::uint64_t multiplier = 1 + rng.Below(base - 1);
      const std::uint64_t shift = rng.Below(base);
      weight /= static_cast<double>(base);
      value += weight * static_cast<double>((multiplier * (rest % base) + shift) % base);
      rest /= base;
    }
    point[j] = value;
  }
  return point;
}

}  // namespace trainyard::tuning
