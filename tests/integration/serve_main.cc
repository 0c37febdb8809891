// A stand-in for `trainyard serve` until the CLI wires it: `ty_serve_for_tests --listen ADDR
// --data-dir DIR` runs `server::Serve`. The durability test runs it as a child it can SIGKILL.
#include <cstdio>
#include <string_view>

#include "server/serve.h"

int main(int argc, char** argv) {
  trainyard::server::ServeOptions options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--listen") {
      options.listen = argv[i + 1];
    } else if (flag == "--data-dir") {
      options.data_dir = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: %s --listen HOST:PORT --data-dir DIR\n", argv[0]);
      return 2;
    }
  }
  return trainyard::server::Serve(options);
}
