// Where this build's sources, outputs and programs are, as CMake configured it
// (tests/support/CMakeLists.txt).
//
// The paths are absolute and differ from one checkout to the next, so they are compiled into this
// one translation unit only: every other test file compiles to the same bytes in any clone, and
// ccache serves them to a fresh clone from a build made elsewhere (scripts/test.sh).
#pragma once

#include <string>

namespace trainyard::testing {

// The repository root, e.g. SourceDir() + "/tests/kube/testdata/seed.json".
const std::string& SourceDir();
// The build directory (build/<preset>).
const std::string& BinaryDir();
// `trainyard-replica`, the supervisor every replica runs under.
const std::string& SupervisorPath();
// The `trainyard` binary.
const std::string& TrainyardPath();
// `ty_serve_for_tests` (tests/integration/serve_main.cc), a stand-in for `trainyard serve`.
const std::string& ServeForTestsPath();
// The Slurm test cluster's state directory (the CTest fixture `slurm_cluster`).
const std::string& SlurmStateDir();

}  // namespace trainyard::testing
