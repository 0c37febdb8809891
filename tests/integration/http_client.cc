#include "integration/http_client.h"

#include <cctype>
#include <chrono>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace trainyard::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

ClientResponse Failure(std::string_view what, const beast::error_code& ec) {
  ClientResponse response;
  response.body = std::string(what) + ": " + ec.message();
  return response;
}

}  // namespace

std::string ClientResponse::Header(std::string_view name) const {
  const auto it = headers.find(Lower(name));
  return it == headers.end() ? std::string() : it->second;
}

// Every step runs asynchronously on the connection's own io_context, because `tcp_stream`'s
// timer (`expires_after`) bounds only asynchronous operations: a synchronous read from a server
// that never answers would block forever.
struct HttpClient::Connection {
  explicit Connection(std::chrono::milliseconds deadline_in) : deadline(deadline_in) {}

  std::chrono::milliseconds deadline;
  asio::io_context io;
  beast::tcp_stream stream{io};
  beast::flat_buffer buffer;

  // Starts one operation with a completion handler, runs it to its end under the deadline and
  // returns its error (`beast::error::timeout` when the deadline passed).
  template <typename Start>
  beast::error_code Await(Start start) {
    beast::error_code result;
    stream.expires_after(deadline);
    start([&result](const beast::error_code& ec, auto&&...) { result = ec; });
    io.restart();
    io.run();
    return result;
  }

  beast::error_code Connect(const std::string& host, int port) {
    beast::error_code ec;
    const tcp::endpoint endpoint(asio::ip::make_address(host, ec),
                                 static_cast<unsigned short>(port));
    if (ec) {
      return ec;
    }
    return Await([&](auto handler) { stream.async_connect(endpoint, std::move(handler)); });
  }

  beast::error_code Write(std::string_view bytes) {
    return Await([&](auto handler) {
      asio::async_write(stream, asio::buffer(bytes.data(), bytes.size()), std::move(handler));
    });
  }

  // Reads one response; a read error gives status 0.
  ClientResponse Read() {
    http::response_parser<http::string_body> parser;
    parser.body_limit(std::uint64_t{64} << 20);
    const beast::error_code ec =
        Await([&](auto handler) { http::async_read(stream, buffer, parser, std::move(handler)); });
    if (ec) {
      return Failure("read", ec);
    }
    auto& message = parser.get();
    ClientResponse response;
    response.status = static_cast<int>(message.result_int());
    for (const auto& field : message) {
      response.headers[Lower(std::string(field.name_string()))] = std::string(field.value());
    }
    response.body = std::move(message.body());
    response.keep_alive = message.keep_alive();
    return response;
  }
};

HttpClient::HttpClient(int port, std::string host, std::chrono::milliseconds deadline)
    : host_(std::move(host)), port_(port), deadline_(deadline) {}

HttpClient::~HttpClient() = default;

ClientResponse HttpClient::Send(std::string_view method, std::string_view target,
                                std::string_view body, const Headers& headers) {
  const bool reused = connection_ != nullptr;
  ClientResponse response = SendOnce(method, target, body, headers);
  // A kept-alive connection the server closed while idle (its 30 s timeout) fails before the
  // request is read: send it again on a fresh connection, as HTTP clients do.
  if (reused && response.status == 0) {
    response = SendOnce(method, target, body, headers);
  }
  return response;
}

ClientResponse HttpClient::SendOnce(std::string_view method, std::string_view target,
                                    std::string_view body, const Headers& headers) {
  if (!connection_) {
    connection_ = std::make_unique<Connection>(deadline_);
    ++connections_opened_;
    if (const auto ec = connection_->Connect(host_, port_)) {
      connection_.reset();
      return Failure("connect", ec);
    }
  }
  http::request<http::string_body> request;
  request.method_string(beast::string_view(method.data(), method.size()));
  request.target(beast::string_view(target.data(), target.size()));
  request.version(11);
  request.set(http::field::host, host_ + ":" + std::to_string(port_));
  bool has_type = false;
  for (const auto& [name, value] : headers) {
    request.set(name, value);
    has_type = has_type || Lower(name) == "content-type";
  }
  if (!body.empty() && !has_type) {
    request.set(http::field::content_type, "application/json");
  }
  request.body() = std::string(body);
  request.prepare_payload();

  const beast::error_code ec = connection_->Await(
      [&](auto handler) { http::async_write(connection_->stream, request, std::move(handler)); });
  // Read even when the write failed: the server may have answered (413) and stopped reading.
  ClientResponse response = connection_->Read();
  if (response.status == 0 && ec) {
    response = Failure("write", ec);
  }
  if (response.status == 0 || !response.keep_alive) {
    connection_.reset();
  }
  return response;
}

std::vector<ClientResponse> HttpClient::SendRaw(std::string_view bytes, int count) {
  Connection connection(deadline_);
  ++connections_opened_;
  if (const auto ec = connection.Connect(host_, port_)) {
    return {Failure("connect", ec)};
  }
  const beast::error_code ec = connection.Write(bytes);
  std::vector<ClientResponse> responses;
  while (static_cast<int>(responses.size()) < count) {
    responses.push_back(connection.Read());
    if (responses.back().status == 0) {
      if (ec) {
        responses.back() = Failure("write", ec);
      }
      break;
    }
  }
  return responses;
}

bool HttpClient::ServerCloses(std::string_view bytes) {
  Connection connection(deadline_);
  ++connections_opened_;
  if (connection.Connect(host_, port_)) {
    return false;
  }
  if (connection.Write(bytes)) {
    return false;
  }
  char scratch[4096];
  while (true) {
    const beast::error_code ec = connection.Await([&](auto handler) {
      connection.stream.async_read_some(asio::buffer(scratch), std::move(handler));
    });
    if (ec) {
      // EOF or reset means the server closed; our own deadline (timeout) means it did not.
      return ec != beast::error::timeout;
    }
  }
}

}  // namespace trainyard::testing
