// An HTTP/1.1 server on Boost.Beast that knows nothing of jobs: it reads requests, hands each to
// an `HttpHandler`, and writes the answer back; over TLS (OpenSSL) when given a certificate.
//
// One `io_context` run by a small pool of threads; each connection is served on its own strand,
// one request at a time, with keep-alive. Limits: a whole request head (request line and headers)
// of at most `max_header_bytes` (431 beyond), a body of at most `max_body_bytes` (413 beyond,
// refused from its Content-Length before it is read), `timeout` for each read or write (an idle
// keep-alive connection is closed after it; a request head must arrive whole within it, so a
// client that trickles its headers is dropped).
//
// Before any byte of a body is read (and before a `100 Continue`), the head goes to
// `HttpHandler::Admit`: a refusal (a missing or revoked token, issue #31) is answered and the
// connection closed without reading the body.
//
// Connections: at most `max_connections` open, and at most `max_connections_per_address` from one
// client address. At either limit a new connection takes the place of the oldest idle one (waiting
// for a request head) that has never presented a valid token (`Admission::authenticated`); when
// there is none it is answered 503 and closed at once. So idle or trickling clients cannot starve
// the ones that authenticate: their connections are the ones given up, and one address cannot hold
// more than its share. (A reserve of slots for authenticated clients would not do: a connection is
// not known to be authenticated until its first head arrives, and idle newcomers could fill the
// reserve too.)
// A request that cannot be read is answered by `HttpHandler::Reject` and the connection closed,
// after draining what the client still sends so that it can read the answer.
//
// Bodies in flight (issue #31): besides each request's limit, the bodies held at once across all
// connections are bounded, `max_body_bytes_in_flight` in memory and `max_spooled_bytes_in_flight`
// in `spool_dir` (server/body_budget.h). After `Admit`, and before any byte of the body is read
// (and before a `100 Continue`), a request reserves its Content-Length from the budget of its
// kind; a chunked body reserves its bytes as they arrive. The reservation is given back once the
// request is answered or its connection closes, however that happens. A request the budget
// cannot hold now is answered 503 UNAVAILABLE with `Retry-After` (by `HttpHandler::Reject`), its
// body unread, and the connection closed; a chunked body that outgrows it mid-way is answered
// the same. A body larger than its whole budget could never fit: it is answered 413 (the budget
// lowers the request's limit). So memory and the spool disk stay bounded however many clients
// send at once, while each client is told to come back rather than cut off silently.
//
// Large bodies: a request whose path starts with one of `spool_prefixes` has its body written to
// a new file in `spool_dir` as it arrives (up to `max_spooled_body_bytes`), and a response may
// send a slice of a file (`HttpResponse::body_file`); for both, `timeout` bounds each read or
// write of a piece, and the whole body must move at `min_body_bytes_per_second` on average after
// a grace of one `timeout`, so a client trickling a large body is dropped too. An in-memory body
// must arrive whole within one `timeout`.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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
  // Bytes of in-memory bodies held at once, in all (issue #31; see above): 25 bodies of the
  // largest size, a bound a small server's memory can spare.
  std::uint64_t max_body_bytes_in_flight = std::uint64_t{256} << 20;
  std::size_t max_header_bytes = std::size_t{16} << 10;
  std::chrono::milliseconds timeout{30'000};
  // Open connections at most, so idle and slow clients cannot take every descriptor (issue #17);
  // see above for what happens at the limit.
  std::size_t max_connections = 512;
  // Open connections from one client address at most (issue #31); see above for what happens at
  // the limit.
  std::size_t max_connections_per_address = 64;
  // The slowest average rate of a spooled upload or a file download, after a grace of `timeout`.
  std::uint64_t min_body_bytes_per_second = std::uint64_t{16} << 10;
  std::vector<std::string> spool_prefixes;  // e.g. "/upload/"; empty: every body in memory
  std::string spool_dir;                    // must exist when `spool_prefixes` is not empty
  std::uint64_t max_spooled_body_bytes = std::uint64_t{5} << 30;
  // Bytes of spooled bodies held at once, in all (see above): room for one upload of the
  // largest size beside several smaller ones, and a bound on the spool disk it takes.
  std::uint64_t max_spooled_bytes_in_flight = std::uint64_t{8} << 30;
  // HTTPS (issue #17): the certificate chain and its private key, PEM files. Both empty: plain
  // HTTP.
  std::string tls_cert_file;
  std::string tls_key_file;
};

// What `HttpHandler::Admit` decides from a request's head, before its body is read.
struct Admission {
  // Set: this is the answer; the body is not read and the connection closes after it.
  std::optional<HttpResponse> refusal;
  // The head carried a valid credential: the connection is never given up for a newcomer.
  bool authenticated = false;
};

// Called on the pool's threads, concurrently for different connections.
class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  // A request's head (`body` and `body_file` empty), before any of its body is read. Exceptions
  // are answered as INTERNAL. By default every request is admitted, unauthenticated.
  virtual Admission Admit(const HttpRequest& /*head*/) { return {}; }
  // A complete request. Exceptions are answered as INTERNAL.
  virtual HttpResponse Handle(const HttpRequest& request) = 0;
  // A request that could not be read: `http_status` is 400 (malformed), 413, 431, or 503 (the
  // bodies in flight fill their budget), `why` says what was wrong. Returns the answer to send
  // before closing.
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
