#include "cli/client/http_exchange.h"

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <fmt/format.h>
#include <openssl/ssl.h>

namespace trainyard::cli {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr std::uint64_t kMaxResponseBytes = std::uint64_t{64} << 20;
constexpr std::string_view kUserAgent = "trainyard-cli";
constexpr std::string_view kHowToReach =
    "Is `trainyard serve` running? Start one with `trainyard serve`, or point --server or "
    "$TRAINYARD_SERVER at a running server.";

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string Seconds(std::chrono::milliseconds duration) {
  return fmt::format("{:g}s", static_cast<double>(duration.count()) / 1000.0);
}

// The connection and I/O steps are asynchronous only so that the stream's deadline applies to
// them; `Run` drives them to the end on this thread. `Stream` is beast::tcp_stream, or
// beast::ssl_stream<beast::tcp_stream> for https (a TLS handshake after the connection).
template <typename Stream>
class Exchange {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  template <typename... Context>
  Exchange(const ServerUrl& server, const RestOptions& options, Context&... tls)
      : server_(server), options_(options), stream_(io_, tls...) {
    parser_.body_limit(kMaxResponseBytes);
  }

  // For https: the name the certificate must carry, also sent as SNI.
  Status ExpectHost() {
    if constexpr (kTls) {
      beast::error_code not_an_address;
      asio::ip::make_address(server_.host, not_an_address);
      // SNI names hosts, never addresses (RFC 6066 §3).
      if (not_an_address &&
          SSL_set_tlsext_host_name(stream_.native_handle(), server_.host.c_str()) != 1) {
        return Status::InvalidArgument("cannot send the host name " + server_.host + " in TLS");
      }
      stream_.set_verify_callback(asio::ssl::host_name_verification(server_.host));
    }
    return Status();
  }

  Result<HttpReply> Run(http::request<http::string_body> request) {
    request_ = std::move(request);
    tcp::resolver resolver(io_);
    beast::error_code ec;
    const auto endpoints = resolver.resolve(server_.host, std::to_string(server_.port), ec);
    if (ec) {
      return Status::Unavailable(fmt::format(
          "Could not find the trainyard server at [{}]: cannot resolve host \"{}\" ({}). {}",
          server_.text, server_.host, ec.message(), kHowToReach));
    }
    Tcp().expires_after(options_.connect_timeout);
    Tcp().async_connect(
        endpoints, [this](beast::error_code error, const tcp::endpoint&) { OnConnect(error); });
    io_.run();
    if (failure_) {
      return *std::move(failure_);
    }
    auto& response = parser_.get();
    HttpReply reply{.status = static_cast<int>(response.result_int())};
    for (const auto& field : response) {
      reply.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    reply.body = std::move(response.body());
    return reply;
  }

 private:
  beast::tcp_stream& Tcp() { return beast::get_lowest_layer(stream_); }

  void OnConnect(beast::error_code ec) {
    if (ec) {
      const std::string why = ec == beast::error::timeout
                                  ? "no connection within " + Seconds(options_.connect_timeout)
                                  : ec.message();
      failure_ = Status::Unavailable(
          fmt::format("Could not connect to the trainyard server at [{}]: {}. {}", server_.text,
                      why, kHowToReach));
      return;
    }
    Tcp().expires_after(options_.response_timeout);
    if constexpr (kTls) {
      stream_.async_handshake(asio::ssl::stream_base::client, [this](beast::error_code error) {
        if (error) {
          failure_ = Status::Unavailable(fmt::format(
              "The TLS handshake with the trainyard server at [{}] failed: {}. {}", server_.text,
              error.message(),
              options_.ca_file.empty()
                  ? "Is its certificate signed by a CA this machine trusts? Name its CA with "
                    "--ca-file or $TRAINYARD_CA_FILE."
                  : "Is its certificate signed by the CA in " + options_.ca_file +
                        ", for the host name in the URL?"));
          return;
        }
        Write();
      });
    } else {
      Write();
    }
  }

  void Write() {
    http::async_write(stream_, request_,
                      [this](beast::error_code error, std::size_t) { OnWrite(error); });
  }

  void OnWrite(beast::error_code ec) {
    if (ec) {
      failure_ = NoAnswer("sending the request", ec);
      return;
    }
    http::async_read(stream_, buffer_, parser_, [this](beast::error_code error, std::size_t) {
      if (error) {
        failure_ = NoAnswer("reading the response", error);
      }
    });
  }

  Status NoAnswer(std::string_view step, beast::error_code ec) const {
    if (ec == beast::error::timeout) {
      return Status::DeadlineExceeded(
          fmt::format("The trainyard server at [{}] did not answer within {}.", server_.text,
                      Seconds(options_.response_timeout)));
    }
    return Status::Unavailable(
        fmt::format("The connection to the trainyard server at [{}] failed while {}: {}.",
                    server_.text, step, ec.message()));
  }

  const ServerUrl& server_;
  const RestOptions& options_;
  asio::io_context io_;
  Stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response_parser<http::string_body> parser_;
  std::optional<Status> failure_;
};

}  // namespace

std::string_view HttpReply::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsNoCase(key, name)) {
      return value;
    }
  }
  return {};
}

Result<HttpReply> SendHttp(const ServerUrl& server, const RestOptions& options, HttpCall call) {
  http::request<http::string_body> request;
  request.method_string(beast::string_view(call.method.data(), call.method.size()));
  request.target(server.base_path + call.target);
  request.version(11);
  const bool ipv6 = server.host.find(':') != std::string::npos;
  request.set(http::field::host, ipv6 ? fmt::format("[{}]:{}", server.host, server.port)
                                      : fmt::format("{}:{}", server.host, server.port));
  request.set(http::field::user_agent, beast::string_view(kUserAgent.data(), kUserAgent.size()));
  for (const auto& [name, value] : call.headers) {
    request.set(name, value);
  }
  if (!options.bearer_token.empty()) {
    request.set(http::field::authorization, "Bearer " + options.bearer_token);
  }
  request.body() = std::move(call.body);
  request.keep_alive(false);
  request.prepare_payload();
  if (!server.tls) {
    return Exchange<beast::tcp_stream>(server, options).Run(std::move(request));
  }
  asio::ssl::context tls(asio::ssl::context::tls_client);
  tls.set_verify_mode(asio::ssl::verify_peer);
  beast::error_code ec;
  if (options.ca_file.empty()) {
    tls.set_default_verify_paths(ec);
  } else {
    tls.load_verify_file(options.ca_file, ec);
  }
  if (ec) {
    return Status::FailedPrecondition(fmt::format(
        "cannot load the CA certificates {}: {}",
        options.ca_file.empty() ? std::string("of this system") : options.ca_file, ec.message()));
  }
  Exchange<beast::ssl_stream<beast::tcp_stream>> exchange(server, options, tls);
  TY_RETURN_IF_ERROR(exchange.ExpectHost());
  return exchange.Run(std::move(request));
}

}  // namespace trainyard::cli
