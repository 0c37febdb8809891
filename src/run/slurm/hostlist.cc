// ExpandHostlist: Slurm's compressed host lists, as `scontrol show hostnames` writes them out.
#include "run/slurm/hostlist.h"

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace trainyard::run::slurm {
namespace {

// Past this many digits a bound could overflow; no real node has such a number.
constexpr std::size_t kMaxDigits = 18;

// One "lo-hi" (or "n") inside brackets; `width` is the zero-padded width of `lo` as written.
struct Range {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  std::size_t width = 0;
  std::uint64_t Size() const { return hi - lo + 1; }
};

// A host name pattern: literal text and bracket groups in turn; `parts[i]` is the text before
// `groups[i]`, and `parts.back()` the text after the last group.
struct Pattern {
  std::vector<std::string> parts{""};
  std::vector<std::vector<Range>> groups;
};

Status Invalid(std::string_view list, std::string_view problem) {
  return Status::InvalidArgument(fmt::format("invalid host list \"{}\": {}", list, problem));
}

Status TooMany(std::string_view list, std::size_t max_hosts) {
  return Invalid(list, fmt::format("it names more than {} hosts", max_hosts));
}

// `sum += n` unless that passes `max`.
bool AddWithin(std::uint64_t& sum, std::uint64_t n, std::uint64_t max) {
  if (n > max || sum > max - n) {
    return false;
  }
  sum += n;
  return true;
}

bool AllDigits(std::string_view text) {
  return !text.empty() && text.size() <= kMaxDigits &&
         text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::uint64_t ToNumber(std::string_view digits) {
  std::uint64_t value = 0;
  for (const char c : digits) {
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

// "1-3,5,08-10" -> its ranges.
Result<std::vector<Range>> ParseGroup(std::string_view list, std::string_view group) {
  std::vector<Range> ranges;
  while (true) {
    const std::size_t comma = group.find(',');
    const std::string_view item = group.substr(0, comma);
    const std::size_t dash = item.find('-');
    const std::string_view lo = item.substr(0, dash);
    const std::string_view hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
    if (!AllDigits(lo) || !AllDigits(hi)) {
      return Invalid(list,
                     fmt::format("range \"{}\" is not a number or two numbers joined by -", item));
    }
    Range range{.lo = ToNumber(lo), .hi = ToNumber(hi), .width = lo.size()};
    if (range.hi < range.lo) {
      return Invalid(list, fmt::format("range \"{}\" ends before it starts", item));
    }
    ranges.push_back(range);
    if (comma == std::string_view::npos) {
      return ranges;
    }
    group.remove_prefix(comma + 1);
  }
}

// The names of `pattern`, appended to `out`: the first group varies slowest.
void Expand(const Pattern& pattern, std::size_t group, std::string& prefix,
            std::vector<std::string>& out) {
  const std::size_t keep = prefix.size();
  prefix += pattern.parts[group];
  if (group == pattern.groups.size()) {
    out.push_back(prefix);
  } else {
    for (const Range& range : pattern.groups[group]) {
      for (std::uint64_t n = range.lo;; ++n) {
        const std::size_t before = prefix.size();
        prefix += fmt::format("{:0{}}", n, range.width);
        Expand(pattern, group + 1, prefix, out);
        prefix.resize(before);
        if (n == range.hi) {
          break;
        }
      }
    }
  }
  prefix.resize(keep);
}

}  // namespace

Result<std::vector<std::string>> ExpandHostlist(std::string_view list, std::size_t max_hosts) {
  std::vector<Pattern> patterns;
  std::uint64_t total = 0;
  std::size_t pos = 0;
  while (true) {
    // One name: up to the next comma outside brackets.
    Pattern pattern;
    std::uint64_t count = 1;
    const std::size_t start = pos;
    while (pos < list.size() && list[pos] != ',') {
      if (list[pos] == ']') {
        return Invalid(list, fmt::format("\"]\" at offset {} closes no \"[\"", pos));
      }
      if (list[pos] != '[') {
        pattern.parts.back() += list[pos++];
        continue;
      }
      const std::size_t close = list.find_first_of("[]", pos + 1);
      if (close == std::string_view::npos || list[close] == '[') {
        return Invalid(list, fmt::format("\"[\" at offset {} is not closed", pos));
      }
      Result<std::vector<Range>> ranges = ParseGroup(list, list.substr(pos + 1, close - pos - 1));
      if (!ranges.ok()) {
        return ranges.status();
      }
      std::uint64_t size = 0;
      for (const Range& range : *ranges) {
        if (!AddWithin(size, range.Size(), max_hosts)) {
          return TooMany(list, max_hosts);
        }
      }
      if (count > max_hosts / size) {
        return TooMany(list, max_hosts);
      }
      count *= size;
      pattern.groups.push_back(std::move(*ranges));
      pattern.parts.emplace_back();
      pos = close + 1;
    }
    if (pos == start) {
      return Invalid(list, fmt::format("the name at offset {} is empty", start));
    }
    if (!AddWithin(total, count, max_hosts)) {
      return TooMany(list, max_hosts);
    }
    patterns.push_back(std::move(pattern));
    if (pos == list.size()) {
      break;
    }
    ++pos;  // the comma
  }
  std::vector<std::string> hosts;
  hosts.reserve(total);
  std::string prefix;
  for (const Pattern& pattern : patterns) {
    Expand(pattern, 0, prefix, hosts);
  }
  return hosts;
}

}  // namespace trainyard::run::slurm
