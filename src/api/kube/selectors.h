// Kubernetes list selectors as kubectl sends them: `labelSelector` (`a=b`, `a==b`, `a!=b`, `a`,
// `!a`, `a in (x,y)`, `a notin (x,y)`, comma-joined: all must hold) and `fieldSelector`
// (`metadata.name=x`, `metadata.namespace!=y`, and for events `involvedObject.name=x` and the
// like: any field the caller can read). Pure and thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trainyard::server {

class Selector {
 public:
  // INVALID_ARGUMENT naming the part that is malformed. `fields`: only `=`, `==` and `!=`.
  static Result<Selector> ParseLabels(std::string_view text);
  static Result<Selector> ParseFields(std::string_view text);

  // Whether every requirement holds for an object whose values are read by `value_of`
  // (nullopt: the object has no such label or field).
  bool Matches(
      const std::function<std::optional<std::string>(std::string_view key)>& value_of) const;
  bool Matches(const std::map<std::string, std::string>& labels) const;

  // The value an `=`/`==` requirement on `key` asks for, if there is one (a fast path:
  // `metadata.name=x` reads one object instead of listing).
  std::optional<std::string> Equality(std::string_view key) const;

  bool empty() const { return requirements_.empty(); }

 private:
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kNotExists };
  struct Requirement {
    std::string key;
    Op op = Op::kEquals;
    std::vector<std::string> values;
  };
  static Result<Selector> Parse(std::string_view text, bool labels);
  std::vector<Requirement> requirements_;
};

}  // namespace trainyard::server
