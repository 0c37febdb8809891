// The `trainyard` command line: gcloud-compatible verbs and flags.
#pragma once

namespace trainyard::cli {

// Parses `argv` and runs the command; returns the process exit code.
int Main(int argc, char** argv);

}  // namespace trainyard::cli
