// `trainyard serve`: the daemon. Opens the job store and the bucket store (`buckets/`, metadata
// in `storage.db`) under the data directory, builds the controller, and serves the HTTP API until
// SIGINT or SIGTERM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace trainyard::server {

struct ServeOptions {
  std::string listen = "127.0.0.1:8470";  // "HOST:PORT" or "[IPV6]:PORT"; port 0 picks one
  std::string data_dir;  // created when missing; holds trainyard.db, storage.db and buckets/
  int threads = 2;
  std::size_t max_body_bytes = std::size_t{10} << 20;
  // The largest storage upload request (a whole object, or one resumable chunk); such bodies go
  // to disk as they arrive, never into memory.
  std::uint64_t max_upload_bytes = std::uint64_t{5} << 30;
};

struct ListenAddress {
  std::string host;  // an address literal, without brackets
  std::uint16_t port = 0;
};

// Parses `ServeOptions::listen`; INVALID_ARGUMENT (on "listen") when malformed.
Result<ListenAddress> ParseListenAddress(std::string_view listen);

// Runs the daemon; returns the process exit code (0 after a clean shutdown on SIGINT/SIGTERM,
// 1 when it could not start, with the reason on stderr). Once listening it prints one line to
// stderr, "trainyard: serving on http://127.0.0.1:PORT/ (data dir DIR)", with the real port.
int Serve(const ServeOptions& options);

}  // namespace trainyard::server
