#include "cli/output/yaml_scalar.h"

#include <regex>
#include <string>

#include <fmt/format.h>

namespace trainyard::cli::internal {
namespace {

bool IsSpaceOrBreak(char32_t c) {
  return c == U'\0' || c == U' ' || c == U'\t' || c == U'\r' || c == U'\n' || c == 0x85 ||
         c == 0x2028 || c == 0x2029;
}

// Printable for ruamel with allow_unicode: written as is in plain and quoted scalars.
bool IsPrintable(char32_t c) {
  return (c >= 0x20 && c <= 0x7E) || c == 0x85 || (c >= 0xA0 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD && c != 0xFEFF) || (c >= 0x10000 && c <= 0x10FFFF);
}

// Whether a plain scalar `text` would be read back as something other than a string (YAML 1.2
// implicit resolvers of ruamel.yaml's VersionedResolver; a resolver applies only to text
// starting with one of its first characters, so "_1" stays a string).
bool ResolvesToNonString(const std::string& text) {
  static const std::regex kImplicit(
      "^(?:true|True|TRUE|false|False|FALSE"
      "|[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
      "|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)"
      "|[-+]?\\.[0-9_]+(?:[eE][-+][0-9]+)?"
      "|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)"
      "|[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[0-9][0-9_]*|[-+][0-9_]+|[-+]?0x[0-9a-fA-F_]+"
      "|<<|~|null|Null|NULL|=|!|&|\\*"
      "|[0-9]{4}-[0-9]{2}-[0-9]{2}"
      "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \\t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]*)?"
      "(?:[ \\t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$");
  return text.empty() || std::regex_match(text, kImplicit);
}

// What analyze_scalar allows in block context.
struct Analysis {
  bool allow_plain = true;
  bool allow_single_quoted = true;
};

Analysis Analyze(const std::u32string& s) {
  bool indicators = s.starts_with(U"---") || s.starts_with(U"...");
  bool special = false;
  bool leading_or_trailing_space = s.front() == U' ' || s.back() == U' ';
  bool preceded_by_space = true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char32_t c = s[i];
    const bool followed_by_space = i + 1 >= s.size() || IsSpaceOrBreak(s[i + 1]);
    if (i == 0) {
      if (std::u32string_view(U"#,[]{}&*!|>'\"%@`").find(c) != std::u32string_view::npos) {
        indicators = true;
      }
      if ((c == U'?' || c == U':' || c == U'-') && followed_by_space) {
        indicators = true;
      }
    } else if ((c == U':' && followed_by_space) || (c == U'#' && preceded_by_space)) {
      indicators = true;
    }
    if (!IsPrintable(c) || c == 0x85 || c == 0x2028 || c == 0x2029) {  // escaped, not folded
      special = true;
    }
    preceded_by_space = IsSpaceOrBreak(c);
  }
  Analysis analysis;
  analysis.allow_plain = !indicators && !special && !leading_or_trailing_space;
  analysis.allow_single_quoted = !special;
  return analysis;
}

}  // namespace

std::u32string DecodeUtf8(std::string_view utf8) {
  std::u32string out;
  for (std::size_t i = 0; i < utf8.size();) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    const int length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t c = length == 1 ? lead : lead & (0x7F >> length);
    for (int k = 1; k < length && i + k < utf8.size(); ++k) {
      c = (c << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    }
    out += c;
    i += length;
  }
  return out;
}

void AppendUtf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

ScalarStyle ChooseScalarStyle(const std::string& utf8, const std::u32string& s) {
  if (s.empty()) {
    return ScalarStyle::kSingleQuoted;
  }
  const Analysis analysis = Analyze(s);
  if (analysis.allow_plain && !ResolvesToNonString(utf8)) {
    return ScalarStyle::kPlain;
  }
  if (s.find(U'\'') != std::u32string::npos) {
    return ScalarStyle::kDoubleQuoted;
  }
  return analysis.allow_single_quoted ? ScalarStyle::kSingleQuoted : ScalarStyle::kDoubleQuoted;
}

bool NeedsEscape(char32_t c) {
  return c == U'"' || c == U'\\' || c == 0x85 || c == 0x2028 || c == 0x2029 || c == 0xFEFF ||
         !((c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD));
}

std::string Escape(char32_t c) {
  switch (c) {
    case U'\0':
      return "\\0";
    case 0x07:
      return "\\a";
    case 0x08:
      return "\\b";
    case U'\t':
      return "\\t";
    case U'\n':
      return "\\n";
    case 0x0B:
      return "\\v";
    case 0x0C:
      return "\\f";
    case U'\r':
      return "\\r";
    case 0x1B:
      return "\\e";
    case U'"':
      return "\\\"";
    case U'\\':
      return "\\\\";
    case 0x85:
      return "\\N";
    case 0x2028:
      return "\\L";
    case 0x2029:
      return "\\P";
    default:
      break;
  }
  if (c <= 0xFF) {
    return fmt::format("\\x{:02X}", static_cast<unsigned>(c));
  }
  if (c <= 0xFFFF) {
    return fmt::format("\\u{:04X}", static_cast<unsigned>(c));
  }
  return fmt::format("\\U{:08X}", static_cast<unsigned>(c));
}

}  // namespace trainyard::cli::internal
