// The connection of http_server.cc, internal to it: one HTTP/1.1 connection, plain or TLS,
// read and answered one request at a time (see http_server.h for the limits and spooling).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <fmt/format.h>

#include "base/clock.h"
#include "base/disk_full.h"
#include "os/file.h"
#include "os/process.h"
#include "os/socket.h"
#include "server/beast_messages.h"
#include "server/body_budget.h"
#include "server/http_server.h"
#include "server/rpc_error.h"
#include "server/session_base.h"

namespace trainyard::server::internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Names of spooled bodies: unique in this process, so a name is never reused while a handler
// may still hold it.
inline std::atomic<std::uint64_t> spool_counter{0};

// One connection: read a request, answer it, repeat while the client keeps it alive. Every
// handler runs on the connection's strand, so the members need no lock. `Stream` is
// beast::tcp_stream (plain HTTP) or beast::ssl_stream<beast::tcp_stream> (HTTPS: a TLS
// handshake first, bounded by `timeout`, and a TLS close_notify at the end).
template <typename Stream>
class Session final : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  template <typename... StreamArgs>
  Session(const HttpServerOptions& options, HttpHandler& handler, BodyBudgets& budgets,
          std::string remote_address, StreamArgs&&... stream_args)
      : SessionBase(std::move(remote_address)),
        stream_(std::forward<StreamArgs>(stream_args)...),
        options_(options),
        handler_(handler),
        budgets_(budgets) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() override { DropSpool(); }

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if constexpr (kTls) {
        self->Tcp().expires_after(self->options_.timeout);
        beast::async_detect_ssl(self->Tcp(), self->buffer_, [self](beast::error_code ec, bool tls) {
          if (ec) {
            self->Close();
          } else if (!tls) {
            self->RefusePlainHttp();
          } else {
            self->Handshake();
          }
        });
      } else {
        self->ReadHeader();
      }
    });
  }

  void Shutdown() override {
    asio::post(stream_.get_executor(), [self = this->shared_from_this()] { self->Close(); });
  }

 private:
  beast::tcp_stream& Tcp() { return beast::get_lowest_layer(stream_); }

  // The TLS handshake, from the bytes `async_detect_ssl` already read.
  void Handshake() {
    Tcp().expires_after(options_.timeout);
    stream_.async_handshake(
        asio::ssl::stream_base::server, buffer_.data(),
        [self = this->shared_from_this()](beast::error_code ec, std::size_t used) {
          if (ec) {
            self->Close();  // a certificate refused, a broken client
            return;
          }
          self->buffer_.consume(used);
          self->ReadHeader();
        });
  }

  // Plain HTTP sent to the HTTPS port: one plain answer saying so, then the connection closes.
  void RefusePlainHttp() {
    const Status why = Status::InvalidArgument(
        "This server speaks HTTPS only: send the request to https:// instead of http://.");
    HttpResponse answer;
    try {
      answer = handler_.Reject(400, why);
    } catch (const std::exception&) {
      answer = ErrorResponse(400, why);
    }
    auto message = std::make_shared<http::response<http::string_body>>();
    SetHead(*message, answer, /*keep_alive=*/false);
    message->body() = std::move(answer.body);
    message->prepare_payload();
    Tcp().expires_after(options_.timeout);
    http::async_write(Tcp(), *message,
                      [self = this->shared_from_this(), message](beast::error_code, std::size_t) {
                        beast::error_code ignored;
                        self->Tcp().socket().shutdown(tcp::socket::shutdown_send, ignored);
                        self->Close();
                      });
  }

  void ReadHeader() {
    MarkIdle();
    parser_.emplace();
    parser_->header_limit(
        static_cast<std::uint32_t>(std::min<std::size_t>(options_.max_header_bytes, UINT32_MAX)));
    // Beast refuses a Content-Length past the limit while parsing the head: allow the larger
    // limit until `OnHeader` knows which one applies.
    parser_->body_limit(std::max<std::uint64_t>(
        options_.max_body_bytes,
        options_.spool_prefixes.empty() ? 0 : options_.max_spooled_body_bytes));
    Tcp().expires_after(options_.timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                              self->OnHeader(ec);
                            });
  }

  void OnHeader(beast::error_code ec) {
    if (!MarkBusy()) {
      return;  // given up for a newcomer: `Close` is on its way
    }
    if (ec) {
      OnReadError(ec);
      return;
    }
    if (!Admit()) {
      return;
    }
    const auto target_view = parser_->get().target();
    const std::string_view target(target_view.data(), target_view.size());
    const bool spool = std::ranges::any_of(
        options_.spool_prefixes, [&](const std::string& p) { return target.starts_with(p); });
    // A body larger than its whole budget could never fit: it is too large (413), not early.
    body_budget_ = spool ? &budgets_.spooled : &budgets_.memory;
    body_limit_ =
        std::min<std::uint64_t>(spool ? options_.max_spooled_body_bytes : options_.max_body_bytes,
                                body_budget_->capacity());
    const auto length = parser_->content_length();
    if (length && *length > body_limit_) {
      OnReadError(http::error::body_limit);
      return;
    }
    if (!ReserveBody(length.value_or(0))) {
      return;
    }
    // Read from the header parser now: StartSpool moves it into the file-body parser.
    const bool expect_continue =
        beast::iequals(parser_->get()[http::field::expect], "100-continue");
    const unsigned version = parser_->get().version();
    if (!spool) {
      parser_->body_limit(body_limit_);  // for a chunked body
    } else if (!StartSpool()) {
      return;
    }
    if (expect_continue) {
      continue_.emplace(http::status::continue_, version);
      http::async_write(stream_, *continue_,
                        [self = this->shared_from_this()](beast::error_code write_ec, std::size_t) {
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

  // Asks the handler whether the request may go on before reading its body; false when it has
  // been refused (the refusal is being written, and the body will not be read).
  bool Admit() {
    HttpRequest head = RequestHead(parser_->get());
    head.remote_address = remote_address_;
    Admission admission;
    try {
      admission = handler_.Admit(head);
    } catch (const std::exception& e) {
      admission.refusal =
          ErrorResponse(Status::Internal(fmt::format("Unexpected error: {}", e.what())));
    }
    if (admission.authenticated) {
      MarkAuthenticated();
    }
    if (!admission.refusal) {
      return true;
    }
    body_unread_ = true;
    Write(std::move(*admission.refusal), /*keep_alive=*/false, head.method == "HEAD");
    return false;
  }

  // Holds `bytes` of the body's budget before any of the body is read (a chunked body's bytes
  // are held as they arrive); false once the request is refused because the budget is full.
  bool ReserveBody(std::uint64_t bytes) {
    std::optional<BodyBudget::Reservation> reservation = body_budget_->TryReserve(bytes);
    if (!reservation) {
      RefuseOverBudget(bytes);
      return false;
    }
    body_reservation_ = std::move(*reservation);
    return true;
  }

  // The bodies in flight fill the budget: 503 with `Retry-After`, the rest of the body unread
  // (and what was spooled of it removed), and the connection closed.
  void RefuseOverBudget(std::uint64_t bytes) {
    const Status why = body_budget_->Refusal(bytes);
    HttpResponse response;
    try {
      response = handler_.Reject(503, why);
    } catch (const std::exception&) {
      response = ErrorResponse(503, why);
    }
    response.headers.emplace_back("Retry-After", "1");
    body_unread_ = true;
    DropSpool();
    file_parser_.reset();
    Write(std::move(response), /*keep_alive=*/false, /*head=*/false);
  }

  // Switches to a parser that writes the body to a new file in the spool dir; false (after
  // answering 500) when the file cannot be created.
  bool StartSpool() {
    spool_path_ = fmt::format("{}/req-{}-{}", options_.spool_dir, os::CurrentPid(),
                              spool_counter.fetch_add(1));
    file_parser_.emplace(std::move(*parser_));
    parser_.reset();
    file_parser_->body_limit(body_limit_);
    beast::error_code ec;
    file_parser_->get().body().file.open(spool_path_.c_str(), beast::file_mode::write_new, ec);
    if (!ec) {
      return true;
    }
    const Status why = SpoolError(ec);
    spool_path_.clear();
    file_parser_.reset();
    Write(ErrorResponse(why), /*keep_alive=*/false, /*head=*/false);
    return false;
  }

  // Why a body could not be spooled: a full disk in a user's words, else the system's.
  Status SpoolError(const beast::error_code& ec) const {
    if (ec.category() == boost::system::system_category() && IsDiskFull(ec.value())) {
      return DiskFullError("store the request body", ec.message());
    }
    return Status::Internal(
        fmt::format("Cannot store the request body in {}: {}.", options_.spool_dir, ec.message()));
  }

  void DropSpool() {
    if (!spool_path_.empty()) {
      (void)os::RemoveFile(spool_path_);
      spool_path_.clear();
    }
  }

  // How long the next piece of a spooled or file body may take: `timeout`, or less when the body
  // as a whole has fallen behind `min_body_bytes_per_second` (after a grace of one `timeout`).
  std::chrono::steady_clock::duration NextPieceTimeout() const {
    const std::uint64_t rate = std::max<std::uint64_t>(1, options_.min_body_bytes_per_second);
    const std::chrono::steady_clock::duration allowed =
        options_.timeout +
        std::chrono::milliseconds(body_moved_ / rate * 1000 + body_moved_ % rate * 1000 / rate);
    return std::clamp<std::chrono::steady_clock::duration>(
        body_start_ + allowed - clock_.Monotonic(), std::chrono::steady_clock::duration::zero(),
        options_.timeout);
  }

  void StartBodyClock() {
    body_start_ = clock_.Monotonic();
    body_moved_ = 0;
  }

  // The body, piece by piece, each piece held in the budget as it arrives (only a chunked body
  // grows past its reservation; its framing counts too). Spooled, `timeout` bounds each read and
  // the minimum rate the whole; in memory, the whole body must arrive within the one `timeout`
  // that `ReadBody` set.
  template <typename Parser>
  void ReadBodyPiece(Parser& parser) {
    if (file_parser_) {
      Tcp().expires_after(NextPieceTimeout());
    }
    http::async_read_some(
        stream_, buffer_, parser,
        [self = this->shared_from_this(), &parser](beast::error_code ec, std::size_t n) {
          self->body_moved_ += n;
          if (ec) {
            self->DropSpool();
            self->OnReadError(ec);
          } else if (!self->body_reservation_.GrowTo(self->body_moved_)) {
            self->RefuseOverBudget(self->body_moved_ - self->body_reservation_.bytes());
          } else if (parser.is_done()) {
            self->OnRequest();
          } else {
            self->ReadBodyPiece(parser);
          }
        });
  }

  void ReadBody() {
    StartBodyClock();
    Tcp().expires_after(options_.timeout);
    if (file_parser_ ? file_parser_->is_done() : parser_->is_done()) {
      OnRequest();  // an empty body: nothing to read
    } else if (file_parser_) {
      ReadBodyPiece(*file_parser_);
    } else {
      ReadBodyPiece(*parser_);
    }
  }

  void OnRequest() {
    HttpRequest request;
    bool keep_alive = false;
    bool head = false;
    if (file_parser_) {
      auto& message = file_parser_->get();
      beast::error_code closed;
      message.body().file.close(closed);
      if (const beast::error_code failed = message.body().error ? message.body().error : closed) {
        // The body was read to its end all the same, so the client is there to be told.
        const Status why = SpoolError(failed);
        keep_alive = message.keep_alive();
        DropSpool();
        file_parser_.reset();
        Write(handler_.Reject(HttpStatusFor(why.code()), why), keep_alive, /*head=*/false);
        return;
      }
      request = RequestHead(message);
      request.body_file = spool_path_;
      keep_alive = message.keep_alive();
      head = message.method() == http::verb::head;
    } else {
      auto& message = parser_->get();
      request = RequestHead(message);
      request.body = std::move(message.body());
      keep_alive = message.keep_alive();
      head = message.method() == http::verb::head;
    }
    request.remote_address = remote_address_;
    HttpResponse response;
    try {
      response = handler_.Handle(request);
    } catch (const std::exception& e) {
      response = ErrorResponse(Status::Internal(fmt::format("Unexpected error: {}", e.what())));
    }
    DropSpool();
    file_parser_.reset();
    Write(std::move(response), keep_alive, head);
  }

  // The client closed between requests, went quiet, or sent something unreadable.
  void OnReadError(beast::error_code ec) {
    int status = 0;
    std::string why;
    if (ec == http::error::body_limit) {
      status = 413;
      why = fmt::format("The request body exceeds the limit of {} bytes.", body_limit_);
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
    body_reservation_.Release();  // the request is answered: its body is no longer held
    if (response.stream && !head) {
      WriteStreamHead(std::move(response));
      return;
    }
    if (response.body_file && !head) {
      auto message = std::make_shared<http::response<FileSliceBody>>();
      beast::error_code ec;
      int error = EBADF;  // no open file to send
      if (response.body_file->file) {
        Result<os::UniqueFd> copy = os::Duplicate(response.body_file->file->get(), &error);
        if (copy.ok()) {
          message->body().file.native_handle(copy->release());
        }
      }
      if (error != 0) {
        ec = beast::error_code(error, beast::system_category());
      }
      if (!ec) {
        SetHead(*message, response, keep_alive);
        message->body().offset = response.body_file->offset;
        message->body().length = response.body_file->length;
        message->content_length(response.body_file->length);
        auto serializer = std::make_shared<http::response_serializer<FileSliceBody>>(*message);
        StartBodyClock();
        WriteSome(message, serializer, keep_alive);
        return;
      }
      response = ErrorResponse(Status::Internal(
          fmt::format("Cannot read {}: {}.", response.body_file->name, ec.message())));
    }
    auto message = std::make_shared<http::response<http::string_body>>();
    SetHead(*message, response, keep_alive);
    message->content_length(response.body_file ? response.body_file->length : response.body.size());
    if (!head) {
      message->body() = std::move(response.body);
    }
    Tcp().expires_after(options_.timeout);
    http::async_write(stream_, *message,
                      [self = this->shared_from_this(), message, keep_alive](
                          beast::error_code ec, std::size_t) { self->AfterWrite(ec, keep_alive); });
  }

  // A file body, piece by piece: `timeout` bounds each write, and the minimum rate the whole.
  void WriteSome(const std::shared_ptr<http::response<FileSliceBody>>& message,
                 const std::shared_ptr<http::response_serializer<FileSliceBody>>& serializer,
                 bool keep_alive) {
    Tcp().expires_after(NextPieceTimeout());
    http::async_write_some(stream_, *serializer,
                           [self = this->shared_from_this(), message, serializer, keep_alive](
                               beast::error_code ec, std::size_t n) {
                             self->body_moved_ += n;
                             if (!ec && !serializer->is_done()) {
                               self->WriteSome(message, serializer, keep_alive);
                               return;
                             }
                             self->AfterWrite(ec, keep_alive);
                           });
  }

  // A streamed body: the head, then a chunk whenever the stream has something, polling it while
  // it has not; the connection closes after the last chunk. The client going away (its end of
  // the socket becomes readable at EOF) ends the stream even while it has nothing to send.
  void WriteStreamHead(HttpResponse response) {
    auto message = std::make_shared<http::response<http::empty_body>>();
    SetHead(*message, response, /*keep_alive=*/false);
    message->chunked(true);
    auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*message);
    Tcp().expires_after(options_.timeout);
    http::async_write_header(
        stream_, *serializer,
        [self = this->shared_from_this(), message, serializer, body = std::move(response.stream),
         interval = response.poll_interval](beast::error_code ec, std::size_t) {
          if (ec) {
            self->Close();
            return;
          }
          self->WatchForHangUp();
          self->PumpStream(body, interval);
        });
  }

  // The socket's readiness is peeked at, not believed: a wake-up with nothing to read (EAGAIN)
  // waits again, where taking it for the end closed a watch without its last chunk. The end is
  // EOF or an error; under TLS also any bytes, since the client sends nothing more on this
  // connection but its close_notify. Plain bytes (a pipelined request) are left for nobody: the
  // connection closes after the stream, and a later hang-up shows as a failed write.
  void WatchForHangUp() {
    Tcp().socket().async_wait(
        tcp::socket::wait_read, [self = this->shared_from_this()](beast::error_code ec) {
          if (ec) {
            self->hung_up_ = true;
            return;
          }
          const os::SocketPeek peek = os::PeekSocket(self->Tcp().socket().native_handle());
          if (peek == os::SocketPeek::kNothing) {
            self->WatchForHangUp();
          } else if (peek != os::SocketPeek::kData || kTls) {
            self->hung_up_ = true;
          }
        });
  }

  void PumpStream(const std::shared_ptr<ResponseStream>& body, std::chrono::milliseconds interval) {
    if (hung_up_ || !Tcp().socket().is_open()) {
      Close();
      return;
    }
    auto chunk = std::make_shared<std::string>();
    bool more = true;
    try {
      more = body->Poll(*chunk);
    } catch (const std::exception&) {
      more = false;  // the head is sent: all that is left is to end the body
    }
    if (chunk->empty() && more) {
      poll_timer_.expires_after(interval);
      poll_timer_.async_wait(
          [self = this->shared_from_this(), body, interval](beast::error_code ec) {
            if (!ec) {
              self->PumpStream(body, interval);
            }
          });
      return;
    }
    Tcp().expires_after(options_.timeout);
    auto done = [self = this->shared_from_this(), body, chunk, more, interval](beast::error_code ec,
                                                                               std::size_t) {
      if (ec) {
        self->Close();
      } else if (more) {
        self->PumpStream(body, interval);
      } else {
        self->Tcp().expires_after(self->options_.timeout);
        asio::async_write(self->stream_, http::make_chunk_last(),
                          [self](beast::error_code, std::size_t) { self->LingeringClose(); });
      }
    };
    if (chunk->empty()) {
      done(beast::error_code{}, 0);
      return;
    }
    asio::async_write(stream_, http::make_chunk(asio::buffer(*chunk)), std::move(done));
  }

  void AfterWrite(beast::error_code ec, bool keep_alive) {
    if (ec) {
      Close();
    } else if (keep_alive) {
      ReadHeader();
    } else {
      LingeringClose();
    }
  }

  // Half-closes, then reads and discards what the client still sends (a refused body) until it
  // closes too, so that closing with unread data (a TCP reset) cannot destroy our answer before
  // the client reads it. Bounded in bytes and by one timeout; for a body refused by `Admit`, a
  // little more than a small request sends (a larger body's sender is cut off, unread).
  void LingeringClose() {
    MarkIdle();            // waiting only for the client to go: a newcomer may take its place
    if constexpr (kTls) {  // close_notify, then the TCP close, bounded by one timeout
      Tcp().expires_after(options_.timeout);
      stream_.async_shutdown(
          [self = this->shared_from_this()](beast::error_code) { self->Close(); });
      return;
    }
    beast::error_code ignored;
    Tcp().socket().shutdown(tcp::socket::shutdown_send, ignored);
    Tcp().expires_after(options_.timeout);
    drain_budget_ =
        body_unread_ ? kUnreadDrainBytes : 2 * options_.max_body_bytes + (std::size_t{1} << 20);
    Drain();
  }

  void Drain() {
    stream_.async_read_some(asio::buffer(drain_),
                            [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
                              if (ec || n >= self->drain_budget_) {
                                self->Close();
                                return;
                              }
                              self->drain_budget_ -= n;
                              self->Drain();
                            });
  }

  void Close() {
    MarkClosing();
    body_reservation_.Release();
    beast::error_code ignored;
    poll_timer_.cancel();
    Tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Tcp().close();
  }

  // What is discarded, at most, of a body `Admit` refused before the connection is closed.
  static constexpr std::size_t kUnreadDrainBytes = std::size_t{64} << 10;

  Stream stream_;
  SystemClock clock_;  // the transport's own: bodies' rates
  const HttpServerOptions& options_;
  HttpHandler& handler_;
  BodyBudgets& budgets_;
  BodyBudget* body_budget_ = nullptr;         // the budget of the request being read
  BodyBudget::Reservation body_reservation_;  // its body's bytes in it, until answered
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  // Instead of `parser_` once the head says the body goes to `spool_path_`.
  std::optional<http::request_parser<internal::SpoolBody>> file_parser_;
  std::string spool_path_;  // removed when the request is done or the session ends
  std::uint64_t body_limit_ = 0;
  std::optional<http::response<http::empty_body>> continue_;
  std::array<char, std::size_t{16} << 10> drain_{};
  std::size_t drain_budget_ = 0;
  asio::steady_timer poll_timer_{stream_.get_executor()};
  bool hung_up_ = false;          // a streamed body's client went away
  bool body_unread_ = false;      // `Admit` refused the request: its body is not read
  MonoTime body_start_{};         // when the spooled or file body being moved started
  std::uint64_t body_moved_ = 0;  // its bytes moved so far
};

}  // namespace trainyard::server::internal
