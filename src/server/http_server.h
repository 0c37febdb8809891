// An HTTP/1.1 server on Boost.Beast that knows nothing of jobs: it reads requests, hands each to
// an `HttpHandler`, and writes the answer back; over TLS (OpenSSL) when given a certificate.
//
// One `io_context` run by a small pool of threads; each connection is served on its own strand,
// one request at a time, with keep-alive. Limits: a whole request head (request line and headers)
// of at most `max_header_bytes` (431 beyond), a body of at most `max_body_bytes` (413 beyond,
// refused from its Content-Length before it is read), `timeout` for each read or write (an idle
// keep-alive connection is closed after it; a request head must arrive whole within it, so a
// client that trickles its headers is dropped), and at most `max_connections` open connections.
// A request that cannot be read is answered by `HttpHandler::Reject` and the connection closed,
// after draining what the client still sends so that it can read the answer.
//
// Large bodies: a request whose path starts with one of `spool_prefixes` has its body written to
// a new file in `spool_dir` as it arrives (up to `max_spooled_body_bytes`), and a response may
// send a slice of a file (`HttpResponse::body_file`); for both, `timeout` bounds each read or
// write of a piece rather than the whole body.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "server/http_message.h"

namespace trainyard::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";  // an IPv4 or IPv6 address literal
  std::uint16_t port = 8470;       // 0: any free port; `Start` returns the one bound
  int threads = 2;
  std::size_t max_body_bytes = std::size_t{10} << 20;
  std::size_t max_header_bytes = std::size_t{16} << 10;
  std::chrono::milliseconds timeout{30'000};
  // Open connections at most; one more is answered 503 and closed at once, so idle and slow
  // clients cannot take every descriptor (issue #17).
  std::size_t max_connections = 512;
  std::vector<std::string> spool_prefixes;  // e.g. "/upload/"; empty: every body in memory
  std::string spool_dir;                    // must exist when `spool_prefixes` is not empty
  std::uint64_t max_spooled_body_bytes = std::uint64_t{5} << 30;
  // HTTPS (issue #17): the certificate chain and its private key, PEM files. Both empty: plain
  // HTTP.
  std::string tls_cert_file;
  std::string tls_key_file;
};

// Called on the pool's threads, concurrently for different connections.
class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  // A complete request. Exceptions are answered as INTERNAL.
  virtual HttpResponse Handle(const HttpRequest& request) = 0;
  // A request that could not be read: `http_status` is 400 (malformed), 413 or 431, `why` says
  // what was wrong. Returns the answer to send before closing.
  virtual HttpResponse Reject(int http_status, const Status& why) = 0;
};

class HttpServer {
 public:
  // `handler` must outlive the server.
  HttpServer(HttpServerOptions options, HttpHandler& handler);
  ~HttpServer();  // Stop()s
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts the threads; returns the port bound. Call at most once.
  // INVALID_ARGUMENT for a bad host or a TLS certificate or key OpenSSL refuses (on "tls-cert",
  // "tls-key"), UNAVAILABLE when the address cannot be bound.
  Result<int> Start();

  // Stops accepting, closes every connection and joins the threads. A request being handled
  // finishes (what it committed stays committed) but its answer may not be sent. Idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainyard::server
