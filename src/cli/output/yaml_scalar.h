// Internal to yaml_printer.cc: how one string scalar is written, following ruamel.yaml 0.15's
// emitter as gcloud 528 configures it (YAML 1.2 resolver, allow_unicode). Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace trainyard::cli::internal {

// Code points of valid UTF-8 `utf8` (ruamel counts columns in characters), and back.
std::u32string DecodeUtf8(std::string_view utf8);
void AppendUtf8(char32_t c, std::string& out);

enum class ScalarStyle { kPlain, kSingleQuoted, kDoubleQuoted };

// The style of a one-line string `text` (`utf8` is the same text): plain unless that would read
// back as another type (`'3'`, `'true'`, timestamps) or starts with an indicator; then single
// quotes, or double quotes when it holds a `'` or a character that must be escaped.
ScalarStyle ChooseScalarStyle(const std::string& utf8, const std::u32string& text);

// Whether a double-quoted scalar writes `c` as an escape, and the escape ("\t", "\x07",
// "\U0001F600").
bool NeedsEscape(char32_t c);
std::string Escape(char32_t c);

}  // namespace trainyard::cli::internal
