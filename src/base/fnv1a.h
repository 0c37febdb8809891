// FNV-1a, 64 bits (Fowler–Noll–Vo, http://www.isthe.com/chongo/tech/comp/fnv/): a fast,
// stable, non-cryptographic hash of bytes, for what must come out the same on every run and
// machine (a stand-in project number, a page token's fingerprint). Not for anything an attacker
// must not be able to forge or collide.
#pragma once

#include <cstdint>
#include <string_view>

namespace trainyard {

inline constexpr std::uint64_t kFnv1aOffsetBasis = 14695981039346656037ULL;

// The hash of `bytes`, continuing from `hash` (the offset basis starts a new one; another value
// salts it, or chains a hash over several pieces).
constexpr std::uint64_t Fnv1a(std::string_view bytes, std::uint64_t hash = kFnv1aOffsetBasis) {
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  for (const char c : bytes) {
    hash = (hash ^ static_cast<unsigned char>(c)) * kPrime;
  }
  return hash;
}

}  // namespace trainyard
