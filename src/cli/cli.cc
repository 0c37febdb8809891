#include "cli/cli.h"

namespace trainyard::cli {
int Main(int, char**) { return 0; }
}  // namespace trainyard::cli
