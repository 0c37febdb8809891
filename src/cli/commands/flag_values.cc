#include "cli/commands/flag_values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/text.h"

namespace trainyard::cli {
namespace {

bool IsAsciiLower(char c) {
  return c >= 'a' && c <= 'z';
}
bool IsAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsNonAscii(char c) {
  return static_cast<unsigned char>(c) >= 0x80;
}

// Length in code points of UTF-8 `text` (gcloud counts Python characters).
std::size_t CodePoints(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// labels_util.IsValidLabelValue: r'[\p{Ll}\p{Lo}\p{N}_-]{0,63}'. Non-ASCII characters are taken
// as the "international characters" gcloud allows; telling upper from lower case outside ASCII
// would need Unicode tables, so an upper-case non-ASCII letter passes here (the server decides).
bool IsValidLabelValue(std::string_view value) {
  return CodePoints(value) <= 63 && std::ranges::all_of(value, [](char c) {
           return c == '_' || c == '-' || IsAsciiDigit(c) || IsAsciiLower(c) || IsNonAscii(c);
         });
}

bool IsValidLabelKey(std::string_view key) {
  return !key.empty() && (IsAsciiLower(key[0]) || IsNonAscii(key[0])) && IsValidLabelValue(key);
}

constexpr std::string_view kKeyFormatError =
    "Only hyphens (-), underscores (_), lowercase characters, and numbers are allowed. Keys "
    "must start with a lowercase character. International characters are allowed. Key length "
    "must not exceed 63 characters.";
constexpr std::string_view kValueFormatError =
    "Only hyphens (-), underscores (_), lowercase characters, and numbers are allowed. "
    "International characters are allowed.";

// Python's int() for the common spellings: optional sign, decimal digits.
bool ParseInt64(std::string_view text, std::int64_t& out) {
  text = TrimWhitespace(text);
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
  }
  if (text.empty()) {
    return false;
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

// gcloud's scale tier choices (jobs_util._SCALE_TIER_CHOICES), sorted as its message lists them.
constexpr std::array<std::pair<std::string_view, model::ScaleTier>, 6> kScaleTiers = {{
    {"basic", model::ScaleTier::kBasic},
    {"basic-gpu", model::ScaleTier::kBasicGpu},
    {"basic-tpu", model::ScaleTier::kBasicTpu},
    {"custom", model::ScaleTier::kCustom},
    {"premium-1", model::ScaleTier::kPremium1},
    {"standard-1", model::ScaleTier::kStandard1},
}};

}  // namespace

std::vector<std::string> SplitList(std::string_view value) {
  std::vector<std::string> out;
  if (value.empty()) {
    return out;
  }
  std::size_t start = 0;
  while (true) {
    const auto comma = value.find(',', start);
    out.emplace_back(value.substr(start, comma - start));
    if (comma == std::string_view::npos) {
      return out;
    }
    start = comma + 1;
  }
}

Result<std::vector<std::pair<std::string, std::string>>> ParseDict(std::string_view value) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& item : SplitList(value)) {
    if (item.empty()) {
      continue;
    }
    const auto eq = item.find('=');
    if (eq == 0) {
      return Status::InvalidArgument(fmt::format("Invalid flag value [{}]", item));
    }
    if (eq == std::string::npos) {
      return Status::InvalidArgument(
          fmt::format("Bad syntax for dict arg: [{}]. Expected KEY=VALUE pairs separated by "
                      "commas.",
                      item));
    }
    std::string key(TrimWhitespace(std::string_view(item).substr(0, eq)));
    std::string val(TrimWhitespace(std::string_view(item).substr(eq + 1)));
    std::erase_if(out, [&](const auto& kv) { return kv.first == key; });
    out.emplace_back(std::move(key), std::move(val));
  }
  return out;
}

Result<model::AcceleratorConfig> ParseAcceleratorSpec(std::string_view value,
                                                      const catalog::Catalog& catalog) {
  auto dict = ParseDict(value);
  if (!dict.ok()) {
    return dict.status();
  }
  model::AcceleratorConfig config;
  bool has_type = false;
  bool has_count = false;
  for (const auto& [key, val] : *dict) {
    if (key == "type") {
      std::string choice = val;
      std::ranges::transform(choice, choice.begin(), [](char c) {
        return c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      });
      const catalog::Accelerator* accelerator = catalog.FindAcceleratorByFlag(choice);
      if (accelerator == nullptr) {
        std::vector<std::string> choices;
        for (const catalog::Accelerator& a : catalog.accelerators()) {
          choices.push_back(a.flag_name);
        }
        std::ranges::sort(choices);
        return Status::InvalidArgument(fmt::format(
            "Invalid accelerator: {}. Valid choices are: [{}].", choice, fmt::join(choices, ", ")));
      }
      config.type = accelerator->name;
      has_type = true;
    } else if (key == "count") {
      if (!ParseInt64(val, config.count)) {
        return Status::InvalidArgument(
            fmt::format("Invalid value [{}] for key [count]: must be an integer.", val));
      }
      if (config.count <= 0) {
        return Status::InvalidArgument("The count of the accelerator must be greater than 0.");
      }
      has_count = true;
    } else {
      return Status::InvalidArgument(
          fmt::format("valid keys are [count, type]; received: {}", key));
    }
  }
  for (const auto& [key, present] : {std::pair{"type", has_type}, std::pair{"count", has_count}}) {
    if (!present) {
      return Status::InvalidArgument(
          fmt::format("Key [{}] required in dict arg but not provided", key));
    }
  }
  return config;
}

Result<model::Labels> ParseLabels(std::string_view value) {
  auto dict = ParseDict(value);
  if (!dict.ok()) {
    return dict.status();
  }
  model::Labels labels;
  for (const auto& [key, val] : *dict) {
    if (!IsValidLabelKey(key)) {
      return Status::InvalidArgument(fmt::format("Bad value [{}]: {}", key, kKeyFormatError));
    }
    if (!IsValidLabelValue(val)) {
      return Status::InvalidArgument(fmt::format("Bad value [{}]: {}", val, kValueFormatError));
    }
    labels[key] = val;
  }
  return labels;
}

Result<model::Labels> MergeLabelFlags(const std::vector<std::string>& values,
                                      std::string_view flag) {
  model::Labels merged;
  std::map<std::string, std::vector<std::string>> given;
  for (const std::string& value : values) {
    auto labels = ParseLabels(value);
    if (!labels.ok()) {
      return Status::InvalidArgument(
          fmt::format("argument {}: {}", flag, labels.status().message()));
    }
    for (const auto& [key, label] : *labels) {
      given[key].push_back(label);
      merged[key] = label;
    }
  }
  for (const auto& [key, labels] : given) {
    if (labels.size() > 1) {
      return Status::InvalidArgument(
          fmt::format("argument {}: \"{}\" cannot be specified multiple times; received: {}", flag,
                      key, fmt::join(labels, ", ")));
    }
  }
  return merged;
}

Result<model::ScaleTier> ParseScaleTier(std::string_view value) {
  // As gcloud matches an enum's choices: any case, '_' for '-' ("BASIC_GPU" is basic-gpu).
  std::string normal(value);
  for (char& c : normal) {
    c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const auto& [choice, tier] : kScaleTiers) {
    if (choice == normal) {
      return tier;
    }
  }
  std::vector<std::string_view> choices;
  choices.reserve(kScaleTiers.size());
  for (const auto& [choice, tier] : kScaleTiers) {
    choices.push_back(choice);
  }
  return Status::InvalidArgument(fmt::format("Invalid choice: '{}'.\n\nValid choices are [{}].",
                                             value, fmt::join(choices, ", ")));
}

Result<std::int64_t> ParsePositiveInt(std::string_view value) {
  std::int64_t count = 0;
  if (!ParseInt64(value, count)) {
    return Status::InvalidArgument(
        fmt::format("Value must be an integer; received: {}", TrimWhitespace(value)));
  }
  if (count < 1) {
    return Status::InvalidArgument(
        fmt::format("Value must be greater than or equal to 1; received: {}", count));
  }
  return count;
}

Result<bool> ParseBoolean(std::string_view value) {
  std::string lower(value);
  std::ranges::transform(lower, lower.begin(),
                         [](char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true" || lower == "yes") {
    return true;
  }
  if (lower == "false" || lower == "no") {
    return false;
  }
  return Status::InvalidArgument(
      fmt::format("Invalid flag value [{}], expected one of [true, yes, false, no]", value));
}

Status CheckServiceAccount(std::string_view value) {
  static const std::regex kPattern(R"(^(.+@.+\..+|[0-9]+)$)");
  if (std::regex_match(value.begin(), value.end(), kPattern)) {
    return {};
  }
  return Status::InvalidArgument(fmt::format(
      "Bad value [{}]: Not a valid service account identifier. It should be either a numeric "
      "string representing the unique_id or an email of the form: my-iam-account@somedomain.com "
      "or my-iam-account@PROJECT_ID.iam.gserviceaccount.com",
      value));
}

Status CheckBucketName(std::string_view name) {
  auto invalid = [&](std::string_view reason) {
    return Status::InvalidArgument(
        fmt::format("Invalid bucket name [{}]: {} See "
                    "https://cloud.google.com/storage/docs/naming#requirements "
                    "for details.",
                    name, reason));
  };
  std::vector<std::string> components(1);
  for (char c : name) {
    if (c == '.') {
      components.emplace_back();
    } else {
      components.back() += c;
    }
  }
  if (name.size() < 3 || name.size() > 222 ||
      std::ranges::any_of(components, [](const std::string& c) { return c.size() > 63; })) {
    return invalid(
        "Bucket names must contain 3 to 63 characters. Names containing dots can contain up to 222 "
        "characters, but each dot-separated component can be no longer than 63 characters.");
  }
  auto lower_or_digit = [](char c) { return IsAsciiLower(c) || IsAsciiDigit(c); };
  if (!std::ranges::all_of(
          name, [&](char c) { return lower_or_digit(c) || c == '-' || c == '_' || c == '.'; })) {
    return invalid(
        "Bucket names must contain only lowercase letters, numbers, dashes (-), underscores (_), "
        "and dots (.).");
  }
  if (!lower_or_digit(name.front()) || !lower_or_digit(name.back())) {
    return invalid("Bucket names must start and end with a number or letter.");
  }
  if (components.size() == 4 &&
      std::ranges::all_of(name, [](char c) { return IsAsciiDigit(c) || c == '.'; })) {
    return invalid(
        "Bucket names cannot be represented as an IP address in dotted-decimal notation (for "
        "example, 192.168.5.4).");
  }
  return {};
}

Result<std::string> ParseStagingBucket(std::string_view value) {
  constexpr std::string_view kPrefix = "gs://";
  if (!value.starts_with(kPrefix)) {
    return Status::InvalidArgument(
        "Must be a valid Google Cloud Storage bucket of the form [gs://somebucket]");
  }
  std::string_view name = value.substr(kPrefix.size());
  while (name.ends_with('/')) {
    name.remove_suffix(1);
  }
  TY_RETURN_IF_ERROR(CheckBucketName(name));
  return std::string(name);
}

Result<ObjectRef> ParseObjectUrl(std::string_view url, bool allow_empty_object) {
  constexpr std::string_view kPrefix = "gs://";
  if (!url.starts_with(kPrefix) || url.size() == kPrefix.size() || url[kPrefix.size()] == '/') {
    return Status::InvalidArgument("Must be of form gs://bucket/object");
  }
  const std::string_view rest = url.substr(kPrefix.size());
  const auto slash = rest.find('/');
  ObjectRef ref{std::string(rest.substr(0, slash)), ""};
  if (slash != std::string_view::npos && slash + 1 < rest.size()) {
    ref.name = std::string(rest.substr(slash + 1));
    TY_RETURN_IF_ERROR(CheckBucketName(ref.bucket));
    if (ref.name.size() > 1024) {
      return Status::InvalidArgument(fmt::format(
          "Invalid object name [{}]: Object names can contain any sequence of valid Unicode "
          "characters, of length 1-1024 bytes when UTF-8 encoded.",
          ref.name));
    }
    if (ref.name.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument(fmt::format(
          "Invalid object name [{}]: Object names must not contain Carriage Return or Line Feed "
          "characters.",
          ref.name));
    }
    return ref;
  }
  if (!allow_empty_object) {
    return Status::InvalidArgument("Invalid object name []: Empty object name is not allowed");
  }
  return ref;
}

bool IsStorageUrl(std::string_view path) {
  return ParseObjectUrl(path, /*allow_empty_object=*/false).ok();
}

}  // namespace trainyard::cli
