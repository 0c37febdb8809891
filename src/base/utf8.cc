#include "base/utf8.h"

#include <cstdint>
#include <cstring>

namespace trainyard {
namespace {

// What starts at some offset of the text: a well-formed sequence, or the maximal subpart of an
// ill-formed one (the longest prefix of a well-formed sequence, at least one byte).
struct Sequence {
  std::size_t length;
  bool valid;
};

// Table 3-7: the number of continuation bytes after `lead` and the range of the first of them
// (narrowed to exclude overlong forms, surrogates and code points past U+10FFFF).
struct LeadRule {
  std::size_t continuations;
  unsigned lo;
  unsigned hi;
};

LeadRule RuleFor(unsigned char lead) {
  if (lead >= 0xC2 && lead <= 0xDF) {
    return {1, 0x80, 0xBF};
  }
  if (lead >= 0xE0 && lead <= 0xEF) {
    return {2, lead == 0xE0 ? 0xA0U : 0x80U, lead == 0xED ? 0x9FU : 0xBFU};
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    return {3, lead == 0xF0 ? 0x90U : 0x80U, lead == 0xF4 ? 0x8FU : 0xBFU};
  }
  return {0, 0, 0};  // 80..C1 and F5..FF start nothing
}

// The sequence at `text[i]`, which is not ASCII.
Sequence SequenceAt(std::string_view text, std::size_t i) {
  const LeadRule rule = RuleFor(static_cast<unsigned char>(text[i]));
  if (rule.continuations == 0) {
    return {1, false};
  }
  for (std::size_t k = 1; k <= rule.continuations; ++k) {
    const unsigned lo = k == 1 ? rule.lo : 0x80U;
    const unsigned hi = k == 1 ? rule.hi : 0xBFU;
    if (i + k >= text.size()) {
      return {k, false};
    }
    const auto byte = static_cast<unsigned char>(text[i + k]);
    if (byte < lo || byte > hi) {
      return {k, false};
    }
  }
  return {rule.continuations + 1, true};
}

// The length of the ASCII prefix of `text`, eight bytes at a time.
std::size_t AsciiPrefix(std::string_view text) {
  constexpr std::size_t kWord = sizeof(std::uint64_t);
  std::size_t i = 0;
  for (; i + kWord <= text.size(); i += kWord) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + i, kWord);
    if ((word & 0x8080808080808080ULL) != 0) {
      break;
    }
  }
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) {
    ++i;
  }
  return i;
}

// The offset of the first ill-formed sequence at or after `i`, or `text.size()`.
std::size_t SkipValid(std::string_view text, std::size_t i) {
  while (true) {
    i += AsciiPrefix(text.substr(i));
    if (i == text.size()) {
      return i;
    }
    const Sequence sequence = SequenceAt(text, i);
    if (!sequence.valid) {
      return i;
    }
    i += sequence.length;
  }
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  return SkipValid(text, 0) == text.size();
}

std::string ToValidUtf8(std::string_view text) {
  std::string out;
  AssignValidUtf8(text, out);
  return out;
}

void AssignValidUtf8(std::string_view text, std::string& out) {
  std::size_t bad = SkipValid(text, 0);
  out.assign(text.substr(0, bad));
  while (bad < text.size()) {
    out.append(kUtf8Replacement);
    const std::size_t next = bad + SequenceAt(text, bad).length;
    bad = SkipValid(text, next);
    out.append(text.substr(next, bad - next));
  }
}

}  // namespace trainyard
