#include "logs/list_query.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <fmt/format.h>

#include "access/audit.h"
#include "base/fnv1a.h"
#include "logs/log_record.h"
#include "model/project_id.h"

namespace trainyard::logs {
namespace {

constexpr std::size_t kHashBytes = 8;
constexpr std::uint64_t kTokenSalt = 0x7472'6169'6e79'6172ULL;  // "trainyar"
constexpr std::string_view kPageTokenField = "pageToken";
constexpr std::string_view kResourceNamesField = "resourceNames";
constexpr std::string_view kProjectsPrefix = "projects/";

// A project a query may read: a project's own log, or the server-wide one.
bool IsReadableProject(std::string_view project) {
  return model::IsValidProjectId(project) || project == access::kServerWideProject;
}

void AppendHash(std::uint64_t hash, std::string& out) {
  for (std::size_t i = 0; i < kHashBytes; ++i) {
    out.push_back(static_cast<char>((hash >> (8 * (kHashBytes - 1 - i))) & 0xff));
  }
}

std::string Fingerprint(const ListQuery& query) {
  std::string text = query.filter;
  text.push_back('\0');
  text.push_back(query.order == Order::kAscending ? 'a' : 'd');
  for (const std::string& project : query.projects) {
    text.push_back('\0');
    text += project;
  }
  std::string out;
  AppendHash(Fnv1a(text), out);
  return out;
}

Status BadToken(std::string description) {
  return Status::InvalidArgument(
      std::vector<FieldViolation>{{std::string(kPageTokenField), std::move(description)}});
}

// The bytes of lower-case hex `token`, as far as it is hex.
std::string FromHex(std::string_view token) {
  const auto nibble = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  std::string bytes;
  for (std::size_t i = 0; i + 1 < token.size(); i += 2) {
    const int high = nibble(token[i]);
    const int low = nibble(token[i + 1]);
    if (high < 0 || low < 0) {
      break;
    }
    bytes.push_back(static_cast<char>(high * 16 + low));
  }
  return bytes;
}

}  // namespace

std::optional<Order> ParseOrderBy(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : std::string(text) + ' ') {
    if (c == ' ' || c == '\t') {
      if (!word.empty()) {
        words.push_back(std::move(word));
        word.clear();
      }
    } else {
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (words.empty() || words[0] != "timestamp" || words.size() > 2) {
    return words.empty() ? std::optional(Order::kAscending) : std::nullopt;
  }
  if (words.size() == 1 || words[1] == "asc") {
    return Order::kAscending;
  }
  return words[1] == "desc" ? std::optional(Order::kDescending) : std::nullopt;
}

std::string EncodePageToken(const ListQuery& query, const LogEntry& last) {
  std::string bytes = Fingerprint(query) + last.timestamp + last.insert_id;
  AppendHash(Fnv1a(bytes, kTokenSalt), bytes);
  constexpr std::string_view kHex = "0123456789abcdef";
  std::string token;
  for (const char c : bytes) {
    token.push_back(kHex[static_cast<unsigned char>(c) >> 4]);
    token.push_back(kHex[static_cast<unsigned char>(c) & 0xf]);
  }
  return token;
}

Result<Cursor> DecodePageToken(std::string_view token, const ListQuery& query) {
  const std::string bytes = FromHex(token);
  constexpr std::size_t kMinBytes = 2 * kHashBytes + kTimestampBytes + 1;
  const std::string_view view(bytes);
  std::string checksum;
  if (bytes.size() * 2 == token.size() && bytes.size() >= kMinBytes) {
    AppendHash(Fnv1a(view.substr(0, view.size() - kHashBytes), kTokenSalt), checksum);
  }
  if (checksum.empty() || !view.ends_with(checksum)) {
    return BadToken(
        "The page token is malformed or was altered; pass nextPageToken from the previous "
        "response unchanged.");
  }
  if (!view.starts_with(Fingerprint(query))) {
    return BadToken(
        "The page token was issued for a different filter, orderBy or resourceNames; send the "
        "same query with it, or start over without a page token.");
  }
  const std::string_view cursor = view.substr(kHashBytes, view.size() - 2 * kHashBytes);
  return Cursor{std::string(cursor.substr(0, kTimestampBytes)),
                std::string(cursor.substr(kTimestampBytes))};
}

void AddProject(std::string_view name, ProjectNaming naming, std::string_view field,
                std::vector<FieldViolation>& violations, std::vector<std::string>& projects) {
  if (naming == ProjectNaming::kResourceName) {
    if (!name.starts_with(kProjectsPrefix)) {
      violations.push_back({std::string(field),
                            "Only \"projects/<PROJECT_ID>\" resource names are supported here."});
      return;
    }
    name.remove_prefix(kProjectsPrefix.size());
  }
  if (!IsReadableProject(name)) {
    violations.push_back({std::string(field), "The project id is malformed."});
  } else if (std::ranges::find(projects, name) == projects.end()) {
    projects.emplace_back(name);
  }
}

Result<std::vector<std::string>> ResolveProjects(std::vector<std::string> named,
                                                 const LogFilter::Scope& scope) {
  if (!named.empty()) {
    return named;
  }
  if (!scope.project.has_value() || !IsReadableProject(*scope.project)) {
    return Status::InvalidArgument(std::vector<FieldViolation>{
        {std::string(kResourceNamesField),
         "Name the project to read: resourceNames [\"projects/<PROJECT_ID>\"], or a filter "
         "with resource.labels.project_id=\"<PROJECT_ID>\"."}});
  }
  return std::vector<std::string>{*scope.project};
}

std::optional<int> PageSizeFor(std::int64_t requested) {
  if (requested < 0 || requested > kMaxPageSize) {
    return std::nullopt;
  }
  return requested == 0 ? kDefaultPageSize : static_cast<int>(requested);
}

std::string PageSizeExpectation() {
  return fmt::format("expected an integer from 0 to {} (0 means {})", kMaxPageSize,
                     kDefaultPageSize);
}

}  // namespace trainyard::logs
