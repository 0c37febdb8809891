// The benchmark's test function of a name, for the bench tests; a name that is none fails the test.
#pragma once

#include <string_view>

#include <gtest/gtest.h>

#include "bench/tuning/test_functions.h"

namespace trainyard::bench {

inline const TestFunction& Function(std::string_view name) {
  for (const TestFunction& function : TestFunctions()) {
    if (function.name == name) {
      return function;
    }
  }
  ADD_FAILURE() << "no test function " << name;
  return TestFunctions().front();
}

}  // namespace trainyard::bench
