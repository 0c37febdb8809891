#include "cli/output/yaml_printer.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/output/yaml_scalar.h"

namespace trainyard::cli {
namespace {

using internal::AppendUtf8;
using internal::ChooseScalarStyle;
using internal::DecodeUtf8;
using internal::Escape;
using internal::NeedsEscape;
using internal::ScalarStyle;
using Json = nlohmann::ordered_json;

constexpr std::size_t kBestWidth = 80;  // ruamel's default line width
constexpr int kIndent = 2;

class Emitter {
 public:
  explicit Emitter(bool sort_keys) : sort_keys_(sort_keys) {}

  std::string Document(const Json& root) {
    if (root.is_object() && !root.empty()) {
      Mapping(root, 0, /*inline_first=*/false);
    } else if (root.is_array() && !root.empty()) {
      Sequence(root, 0, /*inline_first=*/false);
    } else {
      Scalar(root, 0, /*simple_key=*/false);
      LineBreak();
    }
    return std::move(out_);
  }

 private:
  void Write(std::u32string_view text) {
    for (const char32_t c : text) {
      AppendUtf8(c, out_);
    }
    column_ += text.size();
  }
  void Write(std::string_view ascii) {
    out_ += ascii;
    column_ += ascii.size();
  }
  void LineBreak() {
    out_ += '\n';
    column_ = 0;
  }
  // A new line indented to `indent` (ruamel's write_indent).
  void NewLine(std::size_t indent) {
    LineBreak();
    Write(std::string(indent, ' '));
  }

  // `indent` is the mapping's; `inline_first` when the first key follows a sequence's "- ".
  void Mapping(const Json& object, std::size_t indent, bool inline_first) {
    std::vector<std::pair<const std::string*, const Json*>> items;
    for (const auto& [key, value] : object.items()) {
      items.emplace_back(&key, &value);
    }
    if (sort_keys_) {
      std::ranges::sort(items, [](const auto& a, const auto& b) { return *a.first < *b.first; });
    }
    bool first = true;
    for (const auto& [key, value] : items) {
      if (!(first && inline_first)) {
        if (column_ != 0) {
          LineBreak();
        }
        Write(std::string(indent, ' '));
      }
      first = false;
      Scalar(Json(*key), indent + kIndent, /*simple_key=*/true);
      Write(":");
      Value(*value, indent, /*in_mapping=*/true);
    }
    if (items.size() > 0 && column_ != 0) {
      LineBreak();
    }
  }

  void Sequence(const Json& array, std::size_t indent, bool inline_first) {
    bool first = true;
    for (const Json& item : array) {
      if (!(first && inline_first)) {
        if (column_ != 0) {
          LineBreak();
        }
        Write(std::string(indent, ' '));
      }
      first = false;
      Write("-");
      Value(item, indent, /*in_mapping=*/false);
    }
    if (column_ != 0) {
      LineBreak();
    }
  }

  // The value after "key:" (`in_mapping`) or "-", where `indent` is the parent's.
  void Value(const Json& value, std::size_t indent, bool in_mapping) {
    if (value.is_object() && !value.empty()) {
      if (in_mapping) {
        LineBreak();
        Mapping(value, indent + kIndent, /*inline_first=*/false);
      } else {
        Write(" ");
        Mapping(value, indent + kIndent, /*inline_first=*/true);
      }
      return;
    }
    if (value.is_array() && !value.empty()) {
      if (in_mapping) {  // sequences in a mapping are not indented
        LineBreak();
        Sequence(value, indent, /*inline_first=*/false);
      } else {
        Write(" ");
        Sequence(value, indent + kIndent, /*inline_first=*/true);
      }
      return;
    }
    Write(" ");
    Scalar(value, indent + kIndent, /*simple_key=*/false);
  }

  // `indent` is where folded lines continue.
  void Scalar(const Json& value, std::size_t indent, bool simple_key) {
    switch (value.type()) {
      case Json::value_t::object:
        Write("{}");
        return;
      case Json::value_t::array:
        Write("[]");
        return;
      case Json::value_t::null:
        Write("null");
        return;
      case Json::value_t::boolean:
        Write(value.get<bool>() ? "true" : "false");
        return;
      case Json::value_t::number_float:
        Write(FormatGcloudFloat(value.get<double>()));
        return;
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned:
        Write(value.dump());
        return;
      default:
        break;
    }
    const std::string& utf8 = value.get_ref<const std::string&>();
    const std::u32string text = DecodeUtf8(utf8);
    if (!simple_key && text.find(U'\n') != std::u32string::npos) {
      Literal(text, indent);
      return;
    }
    const bool split = !simple_key;
    switch (ChooseScalarStyle(utf8, text)) {
      case ScalarStyle::kPlain:
        Plain(text, indent, split);
        return;
      case ScalarStyle::kSingleQuoted:
        SingleQuoted(text, indent, split);
        return;
      case ScalarStyle::kDoubleQuoted:
        DoubleQuoted(text, indent, split);
        return;
    }
  }

  // write_plain: break at a single space once past the width.
  void Plain(const std::u32string& text, std::size_t indent, bool split) {
    std::size_t start = 0;
    bool spaces = false;
    for (std::size_t end = 0; end <= text.size(); ++end) {
      const bool at_end = end == text.size();
      const char32_t c = at_end ? U'\0' : text[end];
      if (spaces) {
        if (at_end || c != U' ') {
          if (start + 1 == end && column_ > kBestWidth && split) {
            NewLine(indent);
          } else {
            Write(std::u32string_view(text).substr(start, end - start));
          }
          start = end;
        }
      } else if (at_end || c == U' ') {
        Write(std::u32string_view(text).substr(start, end - start));
        start = end;
      }
      spaces = !at_end && c == U' ';
    }
  }

  // write_single_quoted: as plain, never at the first or last character; ' doubled.
  void SingleQuoted(const std::u32string& text, std::size_t indent, bool split) {
    Write("'");
    std::size_t start = 0;
    bool spaces = false;
    for (std::size_t end = 0; end <= text.size(); ++end) {
      const bool at_end = end == text.size();
      const char32_t c = at_end ? U'\0' : text[end];
      if (spaces) {
        if (at_end || c != U' ') {
          if (start + 1 == end && column_ > kBestWidth && split && start != 0 &&
              end != text.size()) {
            NewLine(indent);
          } else {
            Write(std::u32string_view(text).substr(start, end - start));
          }
          start = end;
        }
      } else if ((at_end || c == U' ' || c == U'\'') && start < end) {
        Write(std::u32string_view(text).substr(start, end - start));
        start = end;
      }
      if (c == U'\'') {
        Write("''");
        start = end + 1;
      }
      spaces = !at_end && c == U' ';
    }
    Write("'");
  }

  // write_double_quoted: escapes; a fold ends the line with '\' and escapes a leading space.
  void DoubleQuoted(const std::u32string& text, std::size_t indent, bool split) {
    Write("\"");
    std::size_t start = 0;
    for (std::size_t end = 0; end <= text.size(); ++end) {
      const bool at_end = end == text.size();
      const char32_t c = at_end ? U'\0' : text[end];
      if (at_end || NeedsEscape(c)) {
        if (start < end) {
          Write(std::u32string_view(text).substr(start, end - start));
          start = end;
        }
        if (!at_end) {
          Write(Escape(c));
          start = end + 1;
        }
      }
      if (end > 0 && end + 1 < text.size() && (c == U' ' || start >= end) &&
          column_ + (end - start) > kBestWidth && split) {
        if (start < end) {
          Write(std::u32string_view(text).substr(start, end - start));
          start = end;
        }
        Write("\\");
        NewLine(indent);
        if (text[start] == U' ') {
          Write("\\");
        }
      }
    }
    Write("\"");
  }

  // write_literal with determine_block_hints: "|", "|-" or "|+", and an indentation indicator
  // when the text starts with a space or a line break.
  void Literal(const std::u32string& text, std::size_t indent) {
    std::string hints;
    if (text.front() == U' ' || text.front() == U'\n') {
      hints += std::to_string(kIndent);
    }
    if (text.back() != U'\n') {
      hints += '-';
    } else if (text.size() == 1 || text[text.size() - 2] == U'\n') {
      hints += '+';
    }
    Write("|" + hints);
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t newline = text.find(U'\n', start);
      const std::size_t end = newline == std::u32string::npos ? text.size() : newline;
      LineBreak();
      if (end > start) {
        Write(std::string(indent, ' '));
        Write(std::u32string_view(text).substr(start, end - start));
      }
      start = end + 1;
    }
    if (text.back() == U'\n') {
      LineBreak();
    }
  }

  bool sort_keys_;
  std::string out_;
  std::size_t column_ = 0;
};

}  // namespace

std::string FormatGcloudFloat(double value) {
  std::string text = fmt::format("{:.6g}", value);
  const std::size_t exponent = text.find("e+");
  if (exponent != std::string::npos && std::stoi(text.substr(exponent + 2)) < 9) {
    return fmt::format("{:.1f}", value);
  }
  if (text.find_first_of(".enai") == std::string::npos) {
    text += ".0";
  }
  return text;
}

Result<std::string> FormatYaml(std::string_view json, KeyOrder order) {
  const Json document = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    return Status::InvalidArgument("Cannot print as YAML: the document is not valid JSON.");
  }
  return Emitter(order == KeyOrder::kSorted).Document(document);
}

}  // namespace trainyard::cli
