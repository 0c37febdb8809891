#include "server/http_server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <fmt/format.h>
#include <openssl/ssl.h>

#include "base/check.h"
#include "server/http_session.h"

namespace trainyard::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using internal::Session;
using internal::SessionBase;

// TLS 1.2's suites: forward-secret ones only (ephemeral ECDH key exchange), with AEAD ciphers, as
// Mozilla's "intermediate" configuration; a certificate's RSA or ECDSA key signs. TLS 1.3's own
// suites (SSL_CTX_set_ciphersuites, kept at OpenSSL's defaults) are all forward secret.
constexpr const char* kTls12Ciphers = "ECDHE+AESGCM:ECDHE+CHACHA20";

// The TLS context of `options` (TLS 1.2 and later, forward-secret suites only, the certificate
// chain and key as PEM files), or INVALID_ARGUMENT naming the file OpenSSL refused and why.
Result<std::unique_ptr<asio::ssl::context>> MakeTlsContext(const HttpServerOptions& options) {
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
  SSL_CTX_set_options(context->native_handle(), SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_set_cipher_list(context->native_handle(), kTls12Ciphers) != 1) {
    return Status::Internal(
        fmt::format("OpenSSL has none of the TLS 1.2 suites {}", kTls12Ciphers));
  }
  beast::error_code ec;
  context->use_certificate_chain_file(options.tls_cert_file, ec);
  if (ec) {
    return Status::InvalidArgument(
        {{"tls-cert",
          fmt::format("cannot use {} as a certificate: {}", options.tls_cert_file, ec.message())}});
  }
  context->use_private_key_file(options.tls_key_file, asio::ssl::context::pem, ec);
  if (ec) {
    return Status::InvalidArgument(
        {{"tls-key", fmt::format("cannot use {} as the certificate's private key: {}",
                                 options.tls_key_file, ec.message())}});
  }
  return context;
}

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
      beast::error_code peer_ec;
      const tcp::endpoint peer = socket.remote_endpoint(peer_ec);
      if (peer_ec) {
        Accept();  // gone already
        return;
      }
      std::string address = peer.address().to_string();
      if (!MakeRoom(address)) {
        RefuseBusy(std::move(socket));
        Accept();
        return;
      }
      std::shared_ptr<SessionBase> session;
      if (tls) {
        auto tls_session = std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
            options, handler, budgets, std::move(address), std::move(socket), *tls);
        tls_session->Start();
        session = std::move(tls_session);
      } else {
        auto plain = std::make_shared<Session<beast::tcp_stream>>(
            options, handler, budgets, std::move(address), std::move(socket));
        plain->Start();
        session = std::move(plain);
      }
      {
        std::lock_guard lock(mu);
        if (stopping) {
          return;  // the socket closes with `session`
        }
        sessions.push_back(session);
      }
      Accept();
    });
  }

  // Whether a connection from `address` may open: under both limits, or at one of them once the
  // oldest idle connection that never authenticated (from `address`, at the per-address limit)
  // has been given up for it. See http_server.h for why.
  bool MakeRoom(const std::string& address) {
    std::lock_guard lock(mu);
    std::erase_if(sessions, [](const auto& weak) { return weak.expired(); });
    std::size_t open = 0;
    std::size_t from_address = 0;
    for (const auto& weak : sessions) {
      if (auto session = weak.lock(); session && !session->closing()) {
        ++open;
        from_address += session->remote_address() == address ? 1 : 0;
      }
    }
    const bool address_full = from_address >= options.max_connections_per_address;
    if (!address_full && open < options.max_connections) {
      return true;
    }
    // `sessions` is in the order of acceptance: the first one that gives way is the oldest.
    for (const auto& weak : sessions) {
      auto session = weak.lock();
      if (session && (!address_full || session->remote_address() == address) &&
          session->TryEvict()) {
        return true;
      }
    }
    return false;
  }

  // One connection too many: a plain 503 saying so, written without reading anything, then the
  // close. The connections already open go on.
  static void RefuseBusy(tcp::socket socket) {
    static const std::string kAnswer = [] {
      const std::string body = R"({"error":{"code":503,"message":"The server has too many open )"
                               R"(connections; retry shortly.","status":"UNAVAILABLE"}})";
      return fmt::format(
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; "
          "charset=UTF-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{}",
          body.size(), body);
    }();
    auto held = std::make_shared<tcp::socket>(std::move(socket));
    asio::async_write(*held, asio::buffer(kAnswer), [held](beast::error_code, std::size_t) {
      beast::error_code ignored;
      held->shutdown(tcp::socket::shutdown_send, ignored);
      held->close(ignored);
    });
  }

  const HttpServerOptions options;
  HttpHandler& handler;
  std::unique_ptr<asio::ssl::context> tls;  // set when serving HTTPS
  internal::BodyBudgets budgets{options};   // before `io`: its sessions hold on to it
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::steady_timer retry{io};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::vector<std::jthread> threads;
  bool started = false;

  std::mutex mu;
  bool stopping = false;                             // guarded by mu
  std::vector<std::weak_ptr<SessionBase>> sessions;  // guarded by mu
};

HttpServer::HttpServer(HttpServerOptions options, HttpHandler& handler)
    : impl_(std::make_unique<Impl>(std::move(options), handler)) {}

HttpServer::~HttpServer() {
  Stop();
}

Result<int> HttpServer::Start() {
  TY_CHECK(!impl_->started) << "HttpServer::Start called twice";
  impl_->started = true;
  if (!impl_->options.tls_cert_file.empty() || !impl_->options.tls_key_file.empty()) {
    Result<std::unique_ptr<asio::ssl::context>> tls = MakeTlsContext(impl_->options);
    if (!tls.ok()) {
      return tls.status();
    }
    impl_->tls = *std::move(tls);
  }
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
  std::vector<std::weak_ptr<SessionBase>> sessions;
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
