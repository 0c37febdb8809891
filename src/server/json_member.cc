#include "server/json_member.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace trainyard::server {
namespace {

// Finds a string member of the top-level object while parsing, without building the document:
// a create's body is read twice per request (request and answer), and a DOM of the whole job
// cost as much as the rest of the audit (callgrind). Like the DOM, the last duplicate wins and a
// document that is not valid JSON yields nothing.
class MemberFinder final : public nlohmann::json::json_sax_t {
 public:
  explicit MemberFinder(std::string_view member) : member_(member) {}

  std::string value;  // the member's value when it was a string

  bool null() override { return Value(); }
  bool boolean(bool /*unused*/) override { return Value(); }
  bool number_integer(number_integer_t /*unused*/) override { return Value(); }
  bool number_unsigned(number_unsigned_t /*unused*/) override { return Value(); }
  bool number_float(number_float_t /*unused*/, const string_t& /*unused*/) override {
    return Value();
  }
  bool string(string_t& text) override {
    if (depth_ == 1 && pending_) {
      value = std::move(text);
      found_ = true;
    }
    return Value();
  }
  bool binary(binary_t& /*unused*/) override { return Value(); }
  bool start_object(std::size_t /*unused*/) override {
    top_is_object_ = top_is_object_ || depth_ == 0;
    Value();
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t /*unused*/) override {
    Value();
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& name) override {
    if (depth_ == 1) {
      pending_ = name == member_;
      if (pending_) {
        value.clear();  // a later duplicate whose value is not a string hides an earlier one
        found_ = false;
      }
    }
    return true;
  }
  bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/,
                   const nlohmann::detail::exception& /*unused*/) override {
    return false;
  }

  bool found() const { return top_is_object_ && found_; }

 private:
  // Any value ends a pending member at the top level.
  bool Value() {
    if (depth_ == 1) {
      pending_ = false;
    }
    return true;
  }

  std::string_view member_;
  int depth_ = 0;
  bool pending_ = false;
  bool found_ = false;
  bool top_is_object_ = false;
};

}  // namespace

std::string JsonMember(std::string_view text, std::string_view member) {
  MemberFinder finder(member);
  if (!nlohmann::json::sax_parse(text, &finder) || !finder.found()) {
    return {};
  }
  return std::move(finder.value);
}

}  // namespace trainyard::server
