// TY_CHECK(cond) << "why": aborts on a broken invariant, in every build.
// Never use it on user input; input gets a `Status`.
#pragma once

#include <sstream>

namespace trainyard::internal {

// Collects the streamed message and aborts in its destructor.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  [[noreturn]] ~CheckFailure();

  template <typename T>
  CheckFailure& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};

}  // namespace trainyard::internal

#define TY_CHECK(cond) \
  if (cond) {          \
  } else               \
    ::trainyard::internal::CheckFailure(__FILE__, __LINE__, #cond)
