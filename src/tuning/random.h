// The tuning module's own pseudo-random numbers: SplitMix64 to mix seeds and xoshiro256** to
// draw, with doubles made from the top 53 bits. Written out here (not <random>'s distributions,
// whose output differs between standard libraries) so a seed gives the same study everywhere.
// A `Rng` is a plain value; use one per thread.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace trainyard::tuning {

// One SplitMix64 step: advances `state` and returns a well-mixed 64-bit value.
inline std::uint64_t SplitMix64(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// A 64-bit hash of several words (a seed and what the stream is for), order-sensitive.
inline std::uint64_t MixSeed(std::initializer_list<std::uint64_t> words) {
  std::uint64_t hash = 0x243F6A8885A308D3ULL;
  for (const std::uint64_t word : words) {
    std::uint64_t state = hash ^ word;  // each word meets the mix of all before it
    hash = SplitMix64(state);
  }
  return hash;
}

// xoshiro256** (Blackman and Vigna), seeded through SplitMix64.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (std::uint64_t& word : s_) {
      word = SplitMix64(seed);
    }
  }

  std::uint64_t Next() {
    const std::uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform in [0, n); 0 < n <= 2^53.
  std::uint64_t Below(std::uint64_t n) {
    const auto k = static_cast<std::uint64_t>(Uniform() * static_cast<double>(n));
    return k < n ? k : n - 1;
  }

 private:
  static std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t s_[4];
};

}  // namespace trainyard::tuning
