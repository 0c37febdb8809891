#include "server/http_server.h"

#include <algorithm>
#include <array>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include "base/check.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// One connection: read a request, answer it, repeat while the client keeps it alive. Every
// handler runs on the connection's strand, so the members need no lock.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const HttpServerOptions& options, HttpHandler& handler)
      : stream_(std::move(socket)), options_(options), handler_(handler) {}

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

  // From any thread: closes the connection, which ends whatever it was waiting for.
  void Shutdown() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
  }

 private:
  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(
        static_cast<std::uint32_t>(std::min<std::size_t>(options_.max_header_bytes, UINT32_MAX)));
    parser_->body_limit(static_cast<std::uint64_t>(options_.max_body_bytes));
    stream_.expires_after(options_.timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) {
      OnReadError(ec);
      return;
    }
    const auto length = parser_->content_length();
    if (length && *length > options_.max_body_bytes) {
      OnReadError(http::error::body_limit);
      return;
    }
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      continue_.emplace(http::status::continue_, parser_->get().version());
      http::async_write(stream_, *continue_,
                        [self = shared_from_this()](beast::error_code write_ec, std::size_t) {
                          if (write_ec) {
                            self->Close();
                            return;
                          }
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    stream_.expires_after(options_.timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) {
                         self->OnReadError(ec);
                         return;
                       }
                       self->OnRequest();
                     });
  }

  void OnRequest() {
    auto& message = parser_->get();
    HttpRequest request{.method = std::string(message.method_string()),
                        .target = std::string(message.target()),
                        .content_type = std::string(message[http::field::content_type]),
                        .body = std::move(message.body())};
    HttpResponse response;
    try {
      response = handler_.Handle(request);
    } catch (const std::exception& e) {
      response = ErrorResponse(Status::Internal(fmt::format("Unexpected error: {}", e.what())));
    }
    Write(std::move(response), message.keep_alive(), message.method() == http::verb::head);
  }

  // The client closed between requests, went quiet, or sent something unreadable.
  void OnReadError(beast::error_code ec) {
    int status = 0;
    std::string why;
    if (ec == http::error::body_limit) {
      status = 413;
      why = fmt::format("The request body exceeds the limit of {} bytes.", options_.max_body_bytes);
    } else if (ec == http::error::header_limit) {
      status = 431;
      why = fmt::format("The request line and headers exceed the limit of {} bytes.",
                        options_.max_header_bytes);
    } else if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
               ec != http::error::end_of_stream && ec != http::error::partial_message) {
      // A parse error (the client's stream ending early is not one).
      status = 400;
      why = fmt::format("Malformed HTTP request: {}.", ec.message());
    } else {
      Close();  // end of stream, timeout or socket error: nobody to answer
      return;
    }
    const Status reason = Status::InvalidArgument(why);
    HttpResponse response;
    try {
      response = handler_.Reject(status, reason);
    } catch (const std::exception&) {
      response = ErrorResponse(status, reason);
    }
    Write(std::move(response), /*keep_alive=*/false, /*head=*/false);
  }

  void Write(HttpResponse response, bool keep_alive, bool head) {
    auto message = std::make_shared<http::response<http::string_body>>();
    message->version(11);
    message->result(static_cast<unsigned>(response.status));
    message->set(http::field::server, "trainyard");
    if (!response.content_type.empty()) {
      message->set(http::field::content_type, response.content_type);
    }
    for (const auto& [name, value] : response.headers) {
      message->set(name, value);
    }
    message->keep_alive(keep_alive);
    message->content_length(response.body.size());
    if (!head) {
      message->body() = std::move(response.body);
    }
    stream_.expires_after(options_.timeout);
    http::async_write(
        stream_, *message,
        [self = shared_from_this(), message, keep_alive](beast::error_code ec, std::size_t) {
          if (ec) {
            self->Close();
          } else if (keep_alive) {
            self->ReadHeader();
          } else {
            self->LingeringClose();
          }
        });
  }

  // Half-closes, then reads and discards what the client still sends (a refused body) until it
  // closes too, so that closing with unread data (a TCP reset) cannot destroy our answer before
  // the client reads it. Bounded in bytes and by one timeout.
  void LingeringClose() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(options_.timeout);
    drain_budget_ = 2 * options_.max_body_bytes + (std::size_t{1} << 20);
    Drain();
  }

  void Drain() {
    stream_.async_read_some(asio::buffer(drain_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              if (ec || n >= self->drain_budget_) {
                                self->Close();
                                return;
                              }
                              self->drain_budget_ -= n;
                              self->Drain();
                            });
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  const HttpServerOptions& options_;
  HttpHandler& handler_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  std::array<char, std::size_t{16} << 10> drain_{};
  std::size_t drain_budget_ = 0;
};

}  // namespace

struct HttpServer::Impl {
  Impl(HttpServerOptions opts, HttpHandler& h) : options(std::move(opts)), handler(h) {}

  void Accept() {
    acceptor.async_accept(asio::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) {
        return;
      }
      if (ec) {
        // Out of descriptors, say: try again shortly rather than spin.
        retry.expires_after(std::chrono::milliseconds(100));
        retry.async_wait([this](beast::error_code wait_ec) {
          if (!wait_ec) {
            Accept();
          }
        });
        return;
      }
      auto session = std::make_shared<Session>(std::move(socket), options, handler);
      {
        std::lock_guard lock(mu);
        if (stopping) {
          return;  // the socket closes with `session`
        }
        std::erase_if(sessions, [](const auto& weak) { return weak.expired(); });
        sessions.push_back(session);
      }
      session->Start();
      Accept();
    });
  }

  const HttpServerOptions options;
  HttpHandler& handler;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::steady_timer retry{io};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::vector<std::jthread> threads;
  bool started = false;

  std::mutex mu;
  bool stopping = false;                         // guarded by mu
  std::vector<std::weak_ptr<Session>> sessions;  // guarded by mu
};

HttpServer::HttpServer(HttpServerOptions options, HttpHandler& handler)
    : impl_(std::make_unique<Impl>(std::move(options), handler)) {}

HttpServer::~HttpServer() {
  Stop();
}

Result<int> HttpServer::Start() {
  TY_CHECK(!impl_->started) << "HttpServer::Start called twice";
  impl_->started = true;
  beast::error_code ec;
  const asio::ip::address address = asio::ip::make_address(impl_->options.host, ec);
  if (ec) {
    return Status::InvalidArgument(
        fmt::format("\"{}\" is not an IP address to listen on.", impl_->options.host));
  }
  const tcp::endpoint endpoint(address, impl_->options.port);
  tcp::acceptor& acceptor = impl_->acceptor;
  if (acceptor.open(endpoint.protocol(), ec);
      !ec && (acceptor.set_option(asio::socket_base::reuse_address(true), ec), !ec) &&
      (acceptor.bind(endpoint, ec), !ec)) {
    acceptor.listen(asio::socket_base::max_listen_connections, ec);
  }
  if (ec) {
    return Status::Unavailable(fmt::format("Cannot listen on {}:{}: {}.", impl_->options.host,
                                           impl_->options.port, ec.message()));
  }
  const int port = acceptor.local_endpoint().port();
  impl_->work.emplace(impl_->io.get_executor());
  impl_->Accept();
  const int threads = std::max(1, impl_->options.threads);
  for (int i = 0; i < threads; ++i) {
    impl_->threads.emplace_back([this] { impl_->io.run(); });
  }
  return port;
}

void HttpServer::Stop() {
  if (impl_->threads.empty()) {
    return;
  }
  // Close the acceptor and every connection; once their operations are aborted the context runs
  // out of work and the threads return.
  std::vector<std::weak_ptr<Session>> sessions;
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
    sessions.swap(impl_->sessions);
  }
  asio::post(impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
    impl->retry.cancel();
  });
  for (const auto& weak : sessions) {
    if (auto session = weak.lock()) {
      session->Shutdown();
    }
  }
  impl_->work.reset();
  impl_->threads.clear();  // joins
}

}  // namespace trainyard::server
