// Well-formed UTF-8 (Unicode §3.9, Table 3-7): a check, and a sanitiser that replaces what is
// ill-formed with U+FFFD. Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace trainyard {

// U+FFFD REPLACEMENT CHARACTER, encoded.
inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";

// True when `text` is well-formed UTF-8: no overlong forms, surrogates, code points past
// U+10FFFF, stray continuation bytes or truncated sequences.
bool IsValidUtf8(std::string_view text);

// `text` with each maximal subpart of an ill-formed sequence replaced by one U+FFFD (the
// Unicode "best practice" that WHATWG, ICU and Python's decoder follow): a truncated sequence
// such as E2 82 becomes one U+FFFD, a byte that can start no sequence becomes one each.
// Well-formed text comes back unchanged.
std::string ToValidUtf8(std::string_view text);

// `out` = `ToValidUtf8(text)`, reusing `out`'s buffer (for loops over many lines). `text` must
// not point into `out`.
void AssignValidUtf8(std::string_view text, std::string& out);

}  // namespace trainyard
