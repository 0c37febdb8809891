#include "app/serve.h"

#include <charconv>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <fmt/format.h>

#include "app/daemon.h"
#include "base/clock.h"
#include "sched/inventory.h"

namespace trainyard::app {
namespace {

Status ListenError(std::string_view listen, std::string_view why) {
  return Status::InvalidArgument(std::vector<FieldViolation>{
      {"listen", fmt::format("\"{}\" {}; expected HOST:PORT or [IPV6]:PORT.", listen, why)}});
}

int Fail(const Status& status) {
  fmt::print(stderr, "trainyard: {}\n", status.ToString());
  return 1;
}

}  // namespace

Result<ListenAddress> ParseListenAddress(std::string_view listen) {
  const std::size_t colon = listen.rfind(':');
  if (colon == std::string_view::npos) {
    return ListenError(listen, "has no port");
  }
  std::string_view host = listen.substr(0, colon);
  const std::string_view port_text = listen.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return ListenError(listen, "needs brackets around an IPv6 address");
  }
  if (host.empty()) {
    return ListenError(listen, "has no host");
  }
  unsigned port = 0;
  const char* end = port_text.data() + port_text.size();
  const auto [ptr, ec] = std::from_chars(port_text.data(), end, port);
  if (port_text.empty() || ec != std::errc() || ptr != end || port > 65535) {
    return ListenError(listen, "has no valid port (0-65535)");
  }
  return ListenAddress{std::string(host), static_cast<std::uint16_t>(port)};
}

bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

Status CheckAuthChoice(const ServeOptions& options, const ListenAddress& address) {
  if (options.auth != "none" && options.auth != "tokens") {
    return Status::InvalidArgument(
        {{"auth", fmt::format("unknown value \"{}\": none or tokens", options.auth)}});
  }
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return Status::InvalidArgument(
        {{options.tls_cert.empty() ? "tls-cert" : "tls-key",
          "--tls-cert and --tls-key go together: give both or neither"}});
  }
  if (options.auth == "none" && !options.insecure_no_auth && !IsLoopbackHost(address.host)) {
    return Status::FailedPrecondition(fmt::format(
        "refusing to serve {} without authentication: anyone who can reach it could run any "
        "code as this server's user and read every project's jobs, logs and objects. Turn "
        "tokens on (--auth tokens, then trainyard auth create-token NAME --role editor "
        "--project P), or listen on 127.0.0.1, or say --insecure-no-auth if this network is "
        "yours alone",
        options.listen));
  }
  return Status();
}

int Serve(const ServeOptions& options) {
  // Installed before anything starts, so a signal that comes early still stops us cleanly.
  boost::asio::io_context signals_context;
  boost::asio::signal_set signals(signals_context, SIGINT, SIGTERM);
  int received = 0;
  signals.async_wait([&](const boost::system::error_code& wait_ec, int signal) {
    received = wait_ec ? 0 : signal;
  });

  const SystemClock clock;
  Result<std::unique_ptr<Daemon>> daemon = Daemon::Open(options, clock);
  if (!daemon.ok()) {
    return Fail(daemon.status());
  }
  Result<int> port = (*daemon)->Start();
  if (!port.ok()) {
    return Fail(port.status());
  }
  const ListenAddress address = *ParseListenAddress(options.listen);
  const bool v6 = address.host.find(':') != std::string::npos;
  fmt::print(stderr, "trainyard: serving on {}://{}{}{}:{}/ (data dir {})\n",
             options.tls_cert.empty() ? "http" : "https", v6 ? "[" : "", address.host,
             v6 ? "]" : "", *port, options.data_dir);
  for (const sched::Node& node : (*daemon)->inventory().nodes) {
    int real = 0;
    int emulated = 0;
    for (const sched::Device& device : node.devices) {
      (device.emulated ? emulated : real) += 1;
    }
    fmt::print(stderr, "trainyard: node {}: {} CPUs, {} MiB, {} GPU/TPU devices{}\n", node.name,
               node.cpus, node.memory_mib, real,
               emulated > 0 ? fmt::format(" (+{} emulated)", emulated) : std::string());
  }
  if (options.auth == "none" && !IsLoopbackHost(address.host)) {
    fmt::print(stderr,
               "trainyard: WARNING: no authentication (--insecure-no-auth) on {}: anyone who "
               "reaches it can run code as this server's user\n",
               options.listen);
  } else if (options.auth == "tokens" && (*daemon)->token_count() == 0) {
    fmt::print(stderr,
               "trainyard: tokens are checked and none exists yet: create one with trainyard "
               "auth create-token NAME --role editor --project P --data-dir {}\n",
               options.data_dir);
  }
  std::fflush(stderr);

  signals_context.run();  // until SIGINT or SIGTERM
  (*daemon)->Stop();
  fmt::print(stderr, "trainyard: stopped (signal {})\n", received);
  return 0;
}

}  // namespace trainyard::app
