// DetectSeverity: the level a logging library wrote at the start of a line. The recognised forms
// and level spellings are the tables below; a line matching none gets its stream's default.
#include <array>
#include <cstddef>
#include <string_view>

#include "logs/log_entry.h"
#include "logs/log_reader.h"

namespace trainyard::logs {
namespace {

struct LevelWord {
  std::string_view word;
  Severity severity;
};

// Python logging's level names (and the aliases it accepts), as `%(levelname)s` prints them.
constexpr std::array<LevelWord, 7> kLevelWords = {{
    {"DEBUG", Severity::kDebug},
    {"INFO", Severity::kInfo},
    {"WARNING", Severity::kWarning},
    {"WARN", Severity::kWarning},
    {"ERROR", Severity::kError},
    {"CRITICAL", Severity::kCritical},
    {"FATAL", Severity::kCritical},
}};

struct LevelLetter {
  char letter;
  Severity severity;
};

// absl/glog and TensorFlow C++ level letters.
constexpr std::array<LevelLetter, 4> kLevelLetters = {{
    {'I', Severity::kInfo},
    {'W', Severity::kWarning},
    {'E', Severity::kError},
    {'F', Severity::kCritical},
}};

// Where a level word may stand, by what surrounds it.
struct WordForm {
  std::string_view before;  // "" : at the start of the line
  std::string_view after;
};

constexpr std::array<WordForm, 3> kWordForms = {{
    {"", ":"},       // Python's default format: "WARNING:root:message"
    {"", " - "},     // "%(levelname)s - %(message)s"
    {" - ", " - "},  // "%(asctime)s - %(name)s - %(levelname)s - %(message)s"
}};

// How far into a line a " - LEVEL - " is looked for: past a timestamp and a logger name.
constexpr std::size_t kMaxWordOffset = 160;

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// The level word at the start of `text` followed by `after`.
const LevelWord* WordAt(std::string_view text, std::string_view after) {
  for (const LevelWord& level : kLevelWords) {
    if (text.size() >= level.word.size() + after.size() && text.starts_with(level.word) &&
        text.substr(level.word.size()).starts_with(after)) {
      return &level;
    }
  }
  return nullptr;
}

const LevelWord* FindWord(std::string_view text, const WordForm& form) {
  if (form.before.empty()) {
    return WordAt(text, form.after);
  }
  const std::string_view head = text.substr(0, kMaxWordOffset);
  for (std::size_t at = head.find(form.before); at != std::string_view::npos;
       at = head.find(form.before, at + 1)) {
    if (const LevelWord* level = WordAt(text.substr(at + form.before.size()), form.after)) {
      return level;
    }
  }
  return nullptr;
}

const LevelLetter* Letter(char c) {
  for (const LevelLetter& level : kLevelLetters) {
    if (level.letter == c) {
      return &level;
    }
  }
  return nullptr;
}

// True when `text` at `at` follows `pattern`: '9' a digit, any other character itself.
bool Shaped(std::string_view text, std::size_t at, std::string_view pattern) {
  if (text.size() < at + pattern.size()) {
    return false;
  }
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = text[at + i];
    if (pattern[i] == '9' ? !IsDigit(c) : c != pattern[i]) {
      return false;
    }
  }
  return true;
}

// absl/glog: "I1121 09:35:01.123456  123 file.py:12] message" (letter, MMDD, time).
constexpr std::string_view kGlogShape = "9999 99:99:99";
// TensorFlow C++: "2026-11-21 09:35:01.123456: W tensorflow/…" (the letter after ": ").
constexpr std::string_view kTensorflowShape = "9999-99-99 99:99:99";

const LevelLetter* GlogLetter(std::string_view text) {
  return Shaped(text, 1, kGlogShape) ? Letter(text[0]) : nullptr;
}

const LevelLetter* TensorflowLetter(std::string_view text) {
  if (!Shaped(text, 0, kTensorflowShape)) {
    return nullptr;
  }
  std::size_t at = kTensorflowShape.size();
  if (at < text.size() && text[at] == '.') {
    ++at;
    while (at < text.size() && IsDigit(text[at])) {
      ++at;
    }
  }
  if (text.size() < at + 4 || text[at] != ':' || text[at + 1] != ' ' || text[at + 3] != ' ') {
    return nullptr;
  }
  return Letter(text[at + 2]);
}

}  // namespace

Severity DetectSeverity(Stream stream, std::string_view text, bool service) {
  const Severity fallback = stream == Stream::kStderr ? Severity::kError : Severity::kInfo;
  if (service || text.empty()) {
    return fallback;
  }
  for (const WordForm& form : kWordForms) {
    if (const LevelWord* level = FindWord(text, form)) {
      return level->severity;
    }
  }
  if (const LevelLetter* level = GlogLetter(text)) {
    return level->severity;
  }
  if (const LevelLetter* level = TensorflowLetter(text)) {
    return level->severity;
  }
  return fallback;
}

}  // namespace trainyard::logs
