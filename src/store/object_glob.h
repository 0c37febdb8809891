// GCS's `matchGlob` on object names (objects.list; docs/reference/ai-platform-training.md §11.1),
// internal to store/ (the contract is ListObjectsRequest in bucket_store.h). Pure and
// thread-safe once compiled.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trainyard::store::internal {

// A compiled glob. Its syntax, as GCS documents it:
//   *        any run of characters without "/"
//   **       any run of characters, "/" included; "**/" also matches no directory at all, so
//            "a/**/b" matches "a/b" as well as "a/x/y/b"
//   ?        one character that is not "/"
//   [abc]    one of the characters listed, with ranges ("[a-z]"); "[!abc]" one not listed
//   {x,y}    any one of the comma-separated alternatives (not nested)
//   \c       the character c itself
// Characters are bytes: a multi-byte UTF-8 character is several to "?" and "[…]".
class ObjectGlob {
 public:
  // INVALID_ARGUMENT on field "matchGlob" naming what is wrong: an unclosed "[" or "{", a
  // nested "{", a trailing "\", an empty pattern.
  static Result<ObjectGlob> Compile(std::string_view pattern);

  bool Matches(std::string_view name) const;

  struct Token {
    enum class Kind { kLiteral, kOne, kClass, kStar, kAnyDirs, kDoubleStar };
    Kind kind = Kind::kLiteral;
    char literal = 0;
    std::vector<std::pair<unsigned char, unsigned char>> ranges;  // a class's
    bool negated = false;
  };

 private:
  std::vector<std::vector<Token>> alternatives_;  // the braces expanded: any one may match
};

}  // namespace trainyard::store::internal
