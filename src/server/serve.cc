#include "server/serve.h"

#include <charconv>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <fmt/format.h>

#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "server/server.h"
#include "store/bucket_store.h"
#include "store/sqlite_job_store.h"

namespace trainyard::server {
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

int Serve(const ServeOptions& options) {
  auto address = ParseListenAddress(options.listen);
  if (!address.ok()) {
    return Fail(address.status());
  }
  if (options.data_dir.empty()) {
    return Fail(Status::InvalidArgument("no data directory given"));
  }
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) {
    return Fail(Status::Unavailable(
        fmt::format("cannot create data directory {}: {}", options.data_dir, ec.message())));
  }
  const std::string db_path = (std::filesystem::path(options.data_dir) / "trainyard.db").string();
  auto store = store::OpenSqliteJobStore(db_path);
  if (!store.ok()) {
    return Fail(store.status());
  }
  const SystemClock clock;
  const std::filesystem::path data_dir(options.data_dir);
  auto buckets = store::OpenFileBucketStore((data_dir / "buckets").string(),
                                            (data_dir / "storage.db").string(), clock);
  if (!buckets.ok()) {
    return Fail(buckets.status());
  }
  control::JobController controller(**store, catalog::Catalog::Builtin(), clock);

  // Installed before serving, so a signal that comes early still stops us cleanly.
  boost::asio::io_context signals_context;
  boost::asio::signal_set signals(signals_context, SIGINT, SIGTERM);
  int received = 0;
  signals.async_wait([&](const boost::system::error_code& wait_ec, int signal) {
    received = wait_ec ? 0 : signal;
  });

  Server server(HttpServerOptions{.host = address->host,
                                  .port = address->port,
                                  .threads = options.threads,
                                  .max_body_bytes = options.max_body_bytes,
                                  .max_spooled_body_bytes = options.max_upload_bytes},
                controller, **store, buckets->get(), clock);
  auto port = server.Start();
  if (!port.ok()) {
    return Fail(port.status());
  }
  const bool v6 = address->host.find(':') != std::string::npos;
  fmt::print(stderr, "trainyard: serving on http://{}{}{}:{}/ (data dir {})\n", v6 ? "[" : "",
             address->host, v6 ? "]" : "", *port, options.data_dir);
  std::fflush(stderr);

  signals_context.run();  // until SIGINT or SIGTERM
  server.Stop();
  fmt::print(stderr, "trainyard: stopped (signal {})\n", received);
  return 0;
}

}  // namespace trainyard::server
