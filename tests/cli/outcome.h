// What one run of the command line did, for the CLI's tests.
#pragma once

#include <string>

namespace trainyard::testing {

struct Outcome {
  int rc = 0;
  std::string out;
  std::string err;
};

}  // namespace trainyard::testing
