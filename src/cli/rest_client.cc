#include "cli/rest_client.h"

#include <cctype>
#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include "cli/rpc_status.h"

namespace trainyard::cli {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr std::uint64_t kMaxResponseBytes = std::uint64_t{64} << 20;
constexpr std::string_view kUserAgent = "trainyard-cli";

Status BadUrl(std::string_view url, std::string_view why) {
  return Status::InvalidArgument(
      fmt::format("Invalid server URL [{}]: {}. Expected http://HOST[:PORT]/, such as {}.", url,
                  why, "http://127.0.0.1:8470/"));
}

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) {
    return false;
  }
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) {
      return false;
    }
  }
  return true;
}

std::string Seconds(std::chrono::milliseconds duration) {
  return fmt::format("{:g}s", static_cast<double>(duration.count()) / 1000.0);
}

// The advice every "no answer" message ends with.
constexpr std::string_view kHowToReach =
    "Is `trainyard serve` running? Start one with `trainyard serve`, or point --server or "
    "$TRAINYARD_SERVER at a running server.";

// One request on its own connection. The connection and I/O steps are asynchronous only so
// that the stream's deadline applies to them; `Run` drives them to the end on this thread.
class Exchange {
 public:
  Exchange(const ServerUrl& server, const RestOptions& options)
      : server_(server), options_(options) {
    parser_.body_limit(kMaxResponseBytes);
  }

  Result<std::string> Run(http::request<http::string_body> request) {
    request_ = std::move(request);
    tcp::resolver resolver(io_);
    beast::error_code ec;
    const auto endpoints = resolver.resolve(server_.host, std::to_string(server_.port), ec);
    if (ec) {
      return Status::Unavailable(fmt::format(
          "Could not find the trainyard server at [{}]: cannot resolve host \"{}\" ({}). {}",
          server_.text, server_.host, ec.message(), kHowToReach));
    }
    stream_.expires_after(options_.connect_timeout);
    stream_.async_connect(
        endpoints, [this](beast::error_code error, const tcp::endpoint&) { OnConnect(error); });
    io_.run();
    if (failure_) {
      return *std::move(failure_);
    }
    const auto& response = parser_.get();
    const int status = static_cast<int>(response.result_int());
    if (status >= 200 && status < 300) {
      return response.body();
    }
    return StatusFromHttpError(status, response.body());
  }

 private:
  void OnConnect(beast::error_code ec) {
    if (ec) {
      const std::string why = ec == beast::error::timeout
                                  ? "no connection within " + Seconds(options_.connect_timeout)
                                  : ec.message();
      failure_ =
          Status::Unavailable(fmt::format("Could not connect to the trainyard server at [{}]: "
                                          "{}. {}",
                                          server_.text, why, kHowToReach));
      return;
    }
    stream_.expires_after(options_.response_timeout);
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
        fmt::format("The connection to the trainyard server at [{}] failed "
                    "while {}: {}.",
                    server_.text, step, ec.message()));
  }

  const ServerUrl& server_;
  const RestOptions& options_;
  asio::io_context io_;
  beast::tcp_stream stream_{io_};
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response_parser<http::string_body> parser_;
  std::optional<Status> failure_;
};

}  // namespace

Result<ServerUrl> ParseServerUrl(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (StartsWithNoCase(url, "https://")) {
    return BadUrl(url, "https is not supported; trainyard serves plain HTTP");
  }
  if (!StartsWithNoCase(url, kScheme)) {
    return BadUrl(url, "it does not start with http://");
  }
  std::string_view rest = url.substr(kScheme.size());
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "/" : rest.substr(slash);
  if (path.find_first_of("?#") != std::string_view::npos ||
      authority.find_first_of("?#@") != std::string_view::npos) {
    return BadUrl(url, "it has a query, fragment or user name");
  }
  ServerUrl server{.text = std::string(url)};
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return BadUrl(url, "unclosed '[' in the host");
    }
    server.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') {
      return BadUrl(url, "unexpected text after the host");
    }
    port_text = after.empty() ? std::string_view() : after.substr(1);
    if (after == ":") {
      return BadUrl(url, "empty port");
    }
  } else {
    const std::size_t colon = authority.find(':');
    server.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) {
        return BadUrl(url, "empty port");
      }
    }
  }
  if (server.host.empty()) {
    return BadUrl(url, "no host");
  }
  if (!port_text.empty()) {
    unsigned port = 0;
    const auto [end, error] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (error != std::errc() || end != port_text.data() + port_text.size() || port == 0 ||
        port > 65535) {
      return BadUrl(url, fmt::format("bad port \"{}\"", port_text));
    }
    server.port = static_cast<std::uint16_t>(port);
  }
  server.base_path = std::string(path);
  if (server.base_path.back() != '/') {
    server.base_path += '/';
  }
  return server;
}

std::string PercentEncode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

RestClient::RestClient(ServerUrl server, RestOptions options)
    : server_(std::move(server)), options_(options) {}

Result<RestClient> RestClient::ForUrl(std::string_view url, RestOptions options) {
  auto server = ParseServerUrl(url);
  if (!server.ok()) {
    return server.status();
  }
  return RestClient(*std::move(server), options);
}

Result<std::string> RestClient::Call(std::string_view method, std::string_view path,
                                     std::string_view body) const {
  http::request<http::string_body> request;
  request.method_string(beast::string_view(method.data(), method.size()));
  const std::string target = server_.base_path + std::string(path);
  request.target(target);
  request.version(11);
  const bool ipv6 = server_.host.find(':') != std::string::npos;
  request.set(http::field::host, ipv6 ? fmt::format("[{}]:{}", server_.host, server_.port)
                                      : fmt::format("{}:{}", server_.host, server_.port));
  request.set(http::field::user_agent, beast::string_view(kUserAgent.data(), kUserAgent.size()));
  request.set(http::field::accept, "application/json");
  if (!body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = std::string(body);
  }
  request.keep_alive(false);
  request.prepare_payload();
  return Exchange(server_, options_).Run(std::move(request));
}

}  // namespace trainyard::cli
