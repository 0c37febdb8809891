#include "access/principal.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <string>

#include "base/time_format.h"

namespace trainyard::access {
namespace {

bool IsAlnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

bool IsBase64Url(char c) {
  return IsAlnum(c) || c == '-' || c == '_';
}

bool IsToken68(char c) {  // RFC 7235 §2.1, '=' padding only at the end (checked by the caller)
  return IsBase64Url(c) || c == '.' || c == '~' || c == '+' || c == '/';
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

bool Allows(const Principal& principal, std::string_view permission, std::string_view project) {
  return std::ranges::any_of(principal.grants, [&](const Grant& grant) {
    if (!RoleHolds(grant.role, permission)) {
      return false;
    }
    return RoleSpansProjects(grant.role) || (!project.empty() && grant.project == project);
  });
}

Result<std::vector<Grant>> GrantsFor(Role role, const std::vector<std::string>& projects) {
  if (RoleSpansProjects(role)) {
    if (!projects.empty()) {
      return Status::InvalidArgument(
          {{"project",
            std::string(RoleName(role)) + " holds in every project; give no --project"}});
    }
    return std::vector<Grant>{{role, ""}};
  }
  if (projects.empty()) {
    return Status::InvalidArgument(
        {{"project", "a " + std::string(RoleName(role)) + " token needs at least one --project"}});
  }
  std::vector<Grant> grants;
  for (const std::string& project : projects) {
    if (std::ranges::none_of(grants, [&](const Grant& g) { return g.project == project; })) {
      grants.push_back({role, project});
    }
  }
  return grants;
}

std::string DescribeGrants(const std::vector<Grant>& grants) {
  std::string text;
  for (const Role role : AllRoles()) {
    std::string projects;
    bool spans = false;
    for (const Grant& grant : grants) {
      if (grant.role != role) {
        continue;
      }
      if (RoleSpansProjects(role)) {
        spans = true;
        continue;
      }
      projects += (projects.empty() ? "" : ", ") + grant.project;
    }
    if (!spans && projects.empty()) {
      continue;
    }
    text += text.empty() ? "" : "; ";
    text += std::string(RoleName(role)) + (spans ? " (every project)" : " on " + projects);
  }
  return text.empty() ? "no roles" : text;
}

std::optional<FieldViolation> CheckTokenName(std::string_view name, std::string_view field) {
  const bool ok = !name.empty() && name.size() <= 64 && IsAlnum(name.front()) &&
                  std::ranges::all_of(name, [](char c) {
                    return IsAlnum(c) || c == '.' || c == '_' || c == '@' || c == '-';
                  });
  if (ok) {
    return std::nullopt;
  }
  return FieldViolation{std::string(field),
                        "a token name is 1-64 letters, digits, '.', '_', '@' or '-', starting "
                        "with a letter or digit"};
}

Result<WallTime> ParseExpiry(std::string_view text, WallTime now) {
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(
        {{"expires", "\"" + std::string(text) + "\" " + std::string(why)}});
  };
  std::optional<WallTime> at = ParseTimestamp(text);
  if (!at && text.size() >= 2) {
    std::int64_t count = 0;
    const char* end = text.data() + text.size() - 1;
    const auto [stop, error] = std::from_chars(text.data(), end, count);
    std::int64_t unit_seconds = 0;
    switch (text.back()) {
      case 'd':
        unit_seconds = 86'400;
        break;
      case 'h':
        unit_seconds = 3'600;
        break;
      case 'm':
        unit_seconds = 60;
        break;
      case 's':
        unit_seconds = 1;
        break;
      default:
        break;
    }
    // At most about 100 years, so the arithmetic cannot overflow.
    if (error == std::errc() && stop == end && unit_seconds > 0 && count > 0 &&
        count <= 3'153'600'000 / unit_seconds) {
      at = now + std::chrono::seconds(count * unit_seconds);
    }
  }
  if (!at) {
    return bad(
        "is neither a duration (a positive number and d, h, m or s: 90d) nor an RFC 3339 time");
  }
  if (*at <= now) {
    return bad("is not in the future");
  }
  return *at;
}

bool IsTokenSyntax(std::string_view token) {
  return token.size() == kTokenPrefix.size() + kTokenSecretLength &&
         token.starts_with(kTokenPrefix) &&
         std::ranges::all_of(token.substr(kTokenPrefix.size()), IsBase64Url);
}

Credential ParseAuthorization(std::string_view header) {
  const auto space = [](char c) { return c == ' ' || c == '\t'; };
  while (!header.empty() && space(header.front())) {
    header.remove_prefix(1);
  }
  while (!header.empty() && space(header.back())) {
    header.remove_suffix(1);
  }
  if (header.empty()) {
    return {};
  }
  const std::size_t end_of_scheme = header.find_first_of(" \t");
  if (end_of_scheme == std::string_view::npos ||
      !EqualsIgnoringCase(header.substr(0, end_of_scheme), "Bearer")) {
    return {.kind = Credential::Kind::kMalformed};
  }
  std::string_view value = header.substr(end_of_scheme);
  while (!value.empty() && space(value.front())) {
    value.remove_prefix(1);
  }
  std::string_view body = value;
  while (!body.empty() && body.back() == '=') {
    body.remove_suffix(1);
  }
  if (body.empty() || !std::ranges::all_of(body, IsToken68)) {
    return {.kind = Credential::Kind::kMalformed};
  }
  return {.kind = Credential::Kind::kBearer, .token = std::string(value)};
}

}  // namespace trainyard::access
