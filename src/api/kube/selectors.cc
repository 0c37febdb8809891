#include "api/kube/selectors.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace trainyard::server {
namespace {

// Splits `text` at top-level commas: the commas inside `in (a,b)` belong to their set.
std::vector<std::string_view> SplitRequirements(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    } else if (text[i] == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::string_view Trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool ValidKey(std::string_view key) {
  return !key.empty() && std::ranges::all_of(key, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.' ||
           c == '/';
  });
}

Status Malformed(std::string_view part, std::string_view why) {
  return Status::InvalidArgument("unable to parse requirement \"" + std::string(part) +
                                 "\": " + std::string(why));
}

}  // namespace

Result<Selector> Selector::ParseLabels(std::string_view text) {
  return Parse(text, /*labels=*/true);
}

Result<Selector> Selector::ParseFields(std::string_view text) {
  return Parse(text, /*labels=*/false);
}

Result<Selector> Selector::Parse(std::string_view text, bool labels) {
  Selector selector;
  if (Trim(text).empty()) {
    return selector;
  }
  for (std::string_view raw : SplitRequirements(text)) {
    const std::string_view part = Trim(raw);
    Requirement requirement;
    // Set-based: "key in (a,b)" / "key notin (a,b)" (labels only).
    const auto open = part.find('(');
    if (labels && open != std::string_view::npos) {
      if (!part.ends_with(')')) {
        return Malformed(part, "a value set must end with ')'");
      }
      const std::string_view head = Trim(part.substr(0, open));
      const auto space = head.find_last_of(" \t");
      if (space == std::string_view::npos) {
        return Malformed(part, "expected 'in' or 'notin'");
      }
      const std::string_view op = head.substr(space + 1);
      requirement.key = std::string(Trim(head.substr(0, space)));
      if (op == "in") {
        requirement.op = Op::kIn;
      } else if (op == "notin") {
        requirement.op = Op::kNotIn;
      } else {
        return Malformed(part, "expected 'in' or 'notin'");
      }
      const std::string_view set = part.substr(open + 1, part.size() - open - 2);
      for (std::string_view value : SplitRequirements(set)) {
        requirement.values.emplace_back(Trim(value));
      }
    } else if (const auto ne = part.find("!="); ne != std::string_view::npos) {
      requirement.key = std::string(Trim(part.substr(0, ne)));
      requirement.op = Op::kNotEquals;
      requirement.values.emplace_back(Trim(part.substr(ne + 2)));
    } else if (const auto eq = part.find('='); eq != std::string_view::npos) {
      requirement.key = std::string(Trim(part.substr(0, eq)));
      const std::size_t value_at = part.substr(eq).starts_with("==") ? eq + 2 : eq + 1;
      requirement.values.emplace_back(Trim(part.substr(value_at)));
    } else if (labels && part.starts_with('!')) {
      requirement.key = std::string(Trim(part.substr(1)));
      requirement.op = Op::kNotExists;
    } else if (labels) {
      requirement.key = std::string(part);
      requirement.op = Op::kExists;
    } else {
      return Malformed(part, "expected key=value or key!=value");
    }
    if (!ValidKey(requirement.key)) {
      return Malformed(part, "the key is empty or holds characters a key may not");
    }
    selector.requirements_.push_back(std::move(requirement));
  }
  return selector;
}

bool Selector::Matches(
    const std::function<std::optional<std::string>(std::string_view key)>& value_of) const {
  return std::ranges::all_of(requirements_, [&](const Requirement& r) {
    const std::optional<std::string> value = value_of(r.key);
    const bool in_set = value.has_value() && std::ranges::find(r.values, *value) != r.values.end();
    switch (r.op) {
      case Op::kEquals:
      case Op::kIn:
        return in_set;
      case Op::kNotEquals:
      case Op::kNotIn:
        return !in_set;
      case Op::kExists:
        return value.has_value();
      case Op::kNotExists:
        return !value.has_value();
    }
    return false;
  });
}

bool Selector::Matches(const std::map<std::string, std::string>& labels) const {
  return Matches([&](std::string_view key) -> std::optional<std::string> {
    const auto it = labels.find(std::string(key));
    return it == labels.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
}

std::optional<std::string> Selector::Equality(std::string_view key) const {
  for (const Requirement& r : requirements_) {
    if (r.key == key && r.op == Op::kEquals) {
      return r.values.front();
    }
  }
  return std::nullopt;
}

}  // namespace trainyard::server
