#include "support/build_paths.h"

namespace trainyard::testing {

const std::string& SourceDir() {
  static const std::string path = TY_SOURCE_DIR;
  return path;
}

const std::string& BinaryDir() {
  static const std::string path = TY_BINARY_DIR;
  return path;
}

const std::string& SupervisorPath() {
  static const std::string path = TY_SUPERVISOR_PATH;
  return path;
}

const std::string& TrainyardPath() {
  static const std::string path = TY_TRAINYARD_PATH;
  return path;
}

const std::string& ServeForTestsPath() {
  static const std::string path = TY_SERVE_BINARY;
  return path;
}

const std::string& SlurmStateDir() {
  static const std::string path = TY_SLURM_STATE_DIR;
  return path;
}

}  // namespace trainyard::testing
