#include "cli/client/rest_client.h"

#include <cctype>
#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "cli/client/http_exchange.h"
#include "cli/client/rpc_status.h"

namespace trainyard::cli {
namespace {

Status BadUrl(std::string_view url, std::string_view why) {
  return Status::InvalidArgument(
      fmt::format("Invalid server URL [{}]: {}. Expected http[s]://HOST[:PORT]/, such as {}.", url,
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

}  // namespace

Result<ServerUrl> ParseServerUrl(std::string_view url) {
  const bool tls = StartsWithNoCase(url, "https://");
  if (!tls && !StartsWithNoCase(url, "http://")) {
    return BadUrl(url, "it does not start with http:// or https://");
  }
  std::string_view rest = url.substr(tls ? 8 : 7);
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "/" : rest.substr(slash);
  if (path.find_first_of("?#") != std::string_view::npos ||
      authority.find_first_of("?#@") != std::string_view::npos) {
    return BadUrl(url, "it has a query, fragment or user name");
  }
  ServerUrl server{
      .port = static_cast<std::uint16_t>(tls ? 443 : 80), .text = std::string(url), .tls = tls};
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
    : server_(std::move(server)), options_(std::move(options)) {}

Result<RestClient> RestClient::ForUrl(std::string_view url, RestOptions options) {
  auto server = ParseServerUrl(url);
  if (!server.ok()) {
    return server.status();
  }
  return RestClient(*std::move(server), std::move(options));
}

Result<std::string> RestClient::Call(std::string_view method, std::string_view path,
                                     std::string_view body) const {
  HttpCall call{.method = std::string(method),
                .target = std::string(path),
                .headers = {{"Accept", "application/json"}}};
  if (!body.empty()) {
    call.headers.emplace_back("Content-Type", "application/json");
    call.body = std::string(body);
  }
  Result<HttpReply> reply = SendHttp(server_, options_, std::move(call));
  if (!reply.ok()) {
    return reply.status();
  }
  if (reply->status >= 200 && reply->status < 300) {
    return std::move(reply->body);
  }
  return StatusFromHttpError(reply->status, reply->body);
}

}  // namespace trainyard::cli
