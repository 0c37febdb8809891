#include "cli/http_exchange.h"

#include <cctype>
#include <cstdint>
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
// them; `Run` drives them to the end on this thread.
class Exchange {
 public:
  Exchange(const ServerUrl& server, const RestOptions& options)
      : server_(server), options_(options) {
    parser_.body_limit(kMaxResponseBytes);
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
    stream_.expires_after(options_.connect_timeout);
    stream_.async_connect(
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
        fmt::format("The connection to the trainyard server at [{}] failed while {}: {}.",
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
  return Exchange(server, options).Run(std::move(request));
}

}  // namespace trainyard::cli
