#include "store/object_glob.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

namespace trainyard::store::internal {
namespace {

using Token = ObjectGlob::Token;
using Kind = Token::Kind;

// Braces multiply: "{a,b}{c,d}" is four patterns. GCS documents no bound; this keeps a listing's
// cost bounded.
constexpr std::size_t kMaxAlternatives = 256;

Status Bad(std::string_view pattern, std::string_view why) {
  return Status::InvalidArgument(
      {{"matchGlob", fmt::format("Invalid glob pattern '{}': {}.", pattern, why)}});
}

// The patterns `pattern` stands for once its one level of braces is expanded ("a{b,c}d{e,f}"
// is four), escapes kept for the tokenizer.
Result<std::vector<std::string>> ExpandBraces(std::string_view pattern) {
  std::vector<std::string> out = {""};
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      if (i + 1 == pattern.size()) {
        return Bad(pattern, "it ends with an unfinished escape \"\\\"");
      }
      for (std::string& p : out) {
        p.append(pattern.substr(i, 2));
      }
      ++i;
      continue;
    }
    if (c == '}') {
      return Bad(pattern, "a \"}\" closes no \"{\"");
    }
    if (c != '{') {
      for (std::string& p : out) {
        p += c;
      }
      continue;
    }
    std::vector<std::string> choices = {""};
    std::size_t j = i + 1;
    for (; j < pattern.size() && pattern[j] != '}'; ++j) {
      if (pattern[j] == '{') {
        return Bad(pattern, "braces may not be nested");
      }
      if (pattern[j] == ',') {
        choices.emplace_back();
      } else if (pattern[j] == '\\' && j + 1 < pattern.size()) {
        choices.back().append(pattern.substr(j++, 2));
      } else {
        choices.back() += pattern[j];
      }
    }
    if (j == pattern.size()) {
      return Bad(pattern, "a \"{\" is never closed");
    }
    std::vector<std::string> expanded;
    for (const std::string& head : out) {
      for (const std::string& choice : choices) {
        expanded.push_back(head + choice);
      }
    }
    if (expanded.size() > kMaxAlternatives) {
      return Bad(pattern,
                 fmt::format("its braces make more than {} alternatives", kMaxAlternatives));
    }
    out = std::move(expanded);
    i = j;
  }
  return out;
}

// A bracket expression from just after its "[": `i` ends on its "]".
Result<Token> ParseClass(std::string_view pattern, std::size_t& i) {
  Token token{.kind = Kind::kClass};
  if (i < pattern.size() && pattern[i] == '!') {
    token.negated = true;
    ++i;
  }
  const std::size_t first = i;
  for (; i < pattern.size() && (pattern[i] != ']' || i == first); ++i) {
    auto low = static_cast<unsigned char>(pattern[i]);
    if (pattern[i] == '\\' && i + 1 < pattern.size()) {
      low = static_cast<unsigned char>(pattern[++i]);
    }
    auto high = low;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      high = static_cast<unsigned char>(pattern[i + 2]);
      i += 2;
    }
    token.ranges.emplace_back(low, high);
  }
  if (i == pattern.size()) {
    return Bad(pattern, "a \"[\" is never closed");
  }
  return token;
}

Result<std::vector<Token>> Tokenize(std::string_view pattern, std::string_view whole) {
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '*' && i + 1 < pattern.size() && pattern[i + 1] == '*') {
      const bool dirs = i + 2 < pattern.size() && pattern[i + 2] == '/';
      tokens.push_back(Token{.kind = dirs ? Kind::kAnyDirs : Kind::kDoubleStar});
      i += dirs ? 2 : 1;
    } else if (c == '*') {
      tokens.push_back(Token{.kind = Kind::kStar});
    } else if (c == '?') {
      tokens.push_back(Token{.kind = Kind::kOne});
    } else if (c == '[') {
      ++i;
      Result<Token> token = ParseClass(pattern, i);
      if (!token.ok()) {
        return Bad(whole, "a \"[\" is never closed");
      }
      tokens.push_back(*std::move(token));
    } else {
      const char literal = c == '\\' ? pattern[++i] : c;  // ExpandBraces saw no lone "\"
      tokens.push_back(Token{.kind = Kind::kLiteral, .literal = literal});
    }
  }
  return tokens;
}

bool ClassMatches(const Token& token, unsigned char c) {
  const bool listed = std::ranges::any_of(
      token.ranges, [c](const auto& range) { return range.first <= c && c <= range.second; });
  return listed != token.negated;
}

// Whether `tokens` match all of `name`: reach[j] is whether the tokens so far can end at byte
// j, one row per token (no backtracking, so no pattern takes exponential time).
bool MatchAll(const std::vector<Token>& tokens, std::string_view name) {
  std::vector<char> reach(name.size() + 1, 0);
  reach[0] = 1;
  for (const Token& token : tokens) {
    std::vector<char> next(name.size() + 1, 0);
    bool reached_before = false;  // reach[k] for some k < j
    for (std::size_t j = 0; j <= name.size(); ++j) {
      switch (token.kind) {
        case Kind::kLiteral:
          next[j] = j > 0 && reach[j - 1] && name[j - 1] == token.literal ? 1 : 0;
          break;
        case Kind::kOne:
          next[j] = j > 0 && reach[j - 1] && name[j - 1] != '/' ? 1 : 0;
          break;
        case Kind::kClass:
          next[j] =
              j > 0 && reach[j - 1] && ClassMatches(token, static_cast<unsigned char>(name[j - 1]))
                  ? 1
                  : 0;
          break;
        case Kind::kStar:  // a run without "/": extend the previous position's reach
          next[j] = reach[j] || (j > 0 && next[j - 1] && name[j - 1] != '/') ? 1 : 0;
          break;
        case Kind::kDoubleStar:
          next[j] = reach[j] || (j > 0 && next[j - 1]) ? 1 : 0;
          break;
        case Kind::kAnyDirs:  // "**/": nothing, or any run ending with "/"
          next[j] = reach[j] || (reached_before && name[j - 1] == '/') ? 1 : 0;
          break;
      }
      reached_before = reached_before || reach[j] != 0;
    }
    reach = std::move(next);
  }
  return reach[name.size()] != 0;
}

}  // namespace

Result<ObjectGlob> ObjectGlob::Compile(std::string_view pattern) {
  if (pattern.empty()) {
    return Bad(pattern, "it is empty");
  }
  Result<std::vector<std::string>> expanded = ExpandBraces(pattern);
  if (!expanded.ok()) {
    return expanded.status();
  }
  ObjectGlob glob;
  for (const std::string& alternative : *expanded) {
    Result<std::vector<Token>> tokens = Tokenize(alternative, pattern);
    if (!tokens.ok()) {
      return tokens.status();
    }
    glob.alternatives_.push_back(*std::move(tokens));
  }
  return glob;
}

bool ObjectGlob::Matches(std::string_view name) const {
  return std::ranges::any_of(
      alternatives_, [name](const std::vector<Token>& tokens) { return MatchAll(tokens, name); });
}

}  // namespace trainyard::store::internal
