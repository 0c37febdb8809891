// A small `trainyard serve` for tests: `ty_serve_for_tests --listen ADDR --data-dir DIR
// [--hold-queue]` runs `app::Serve`. The durability test runs it as a child it can SIGKILL.
#include <cstdio>
#include <string_view>

#include "app/serve.h"
#include "support/build_paths.h"

int main(int argc, char** argv) {
  trainyard::app::ServeOptions options;
  options.supervisor =
      trainyard::testing::SupervisorPath();  // not next to this binary, as to `trainyard`
  for (int i = 1; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--hold-queue") {
      options.hold_queue = true;
      --i;
    } else if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", argv[i]);
      return 2;
    } else if (flag == "--listen") {
      options.listen = argv[i + 1];
    } else if (flag == "--data-dir") {
      options.data_dir = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: %s --listen HOST:PORT --data-dir DIR [--hold-queue]\n", argv[0]);
      return 2;
    }
  }
  return trainyard::app::Serve(options);
}
