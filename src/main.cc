// trainyard: one binary for the server, the CLI and the replica launcher.
#include "cli/cli.h"

int main(int argc, char** argv) {
  return trainyard::cli::Main(argc, argv);
}
