#include "control/etag.h"

#include <cstdint>

#include "base/base64.h"

namespace trainyard::control {
namespace {

// FNV-1a over each part with a separator that no part contains, so ("ab","c") != ("a","bc").
void Mix(std::uint64_t& hash, std::string_view part) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  for (const char c : part) {
    hash = (hash ^ static_cast<unsigned char>(c)) * kPrime;
  }
  hash = (hash ^ 0xffU) * kPrime;  // 0xff never occurs in UTF-8 text
}

// MurmurHash3's finaliser: spreads FNV's weak low bits over all 64.
std::uint64_t Finalize(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

std::string NextEtag(std::string_view project, std::string_view job_id, std::string_view previous) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  Mix(hash, project);
  Mix(hash, job_id);
  Mix(hash, previous);
  hash = Finalize(hash);
  std::string bytes(8, '\0');
  for (int i = 7; i >= 0; --i) {
    bytes[static_cast<std::size_t>(i)] = static_cast<char>(hash & 0xff);
    hash >>= 8;
  }
  return Base64Encode(bytes, Base64Alphabet::kStandard);
}

}  // namespace trainyard::control
