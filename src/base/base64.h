// Base64 (RFC 4648): the wire's `bytes` fields (etags), opaque page tokens, and access tokens.
// Pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trainyard {

enum class Base64Alphabet {
  kStandard,  // "+/" with "=" padding: what proto3 JSON emits for bytes (etag)
  kUrlSafe,   // "-_" without padding: page tokens, safe in a query string unescaped
};

std::string Base64Encode(std::string_view bytes, Base64Alphabet alphabet);

// Strict: only the alphabet's characters, padding exactly as `Base64Encode` writes it, and no
// stray bits in the last character, so every byte string has one accepted spelling.
std::optional<std::string> Base64Decode(std::string_view text, Base64Alphabet alphabet);

}  // namespace trainyard
