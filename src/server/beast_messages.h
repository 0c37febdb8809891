// Beast helpers internal to http_server.cc: a body type that sends a byte range of an open file,
// read in pieces while the response is written (a download of any size never sits in memory),
// one that spools a request body to a file as it arrives (an upload never sits in memory either),
// and the conversions between Beast's message heads and `HttpRequest`/`HttpResponse`.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/file.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>

#include "os/file.h"
#include "server/http_message.h"

namespace trainyard::server::internal {

struct FileSliceBody {
  struct value_type {
    boost::beast::file file;  // opened for reading by the caller
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
  };

  static std::uint64_t size(const value_type& body) { return body.length; }

  class writer {
   public:
    using const_buffers_type = boost::asio::const_buffer;

    template <bool isRequest, class Fields>
    writer(boost::beast::http::header<isRequest, Fields>& /*header*/, value_type& body)
        : body_(body) {}

    void init(boost::beast::error_code& ec) {
      ec = {};
      position_ = body_.offset;
      remain_ = body_.length;
    }

    boost::optional<std::pair<const_buffers_type, bool>> get(boost::beast::error_code& ec) {
      ec = {};
      if (remain_ == 0) {
        return boost::none;
      }
      const auto amount = static_cast<std::size_t>(std::min<std::uint64_t>(remain_, kChunk));
      std::size_t n = 0;
      if (const int error = os::ReadAt(body_.file.native_handle(), position_,
                                       std::span<char>(buffer_.get(), amount), n);
          error != 0) {
        ec = boost::beast::error_code(error, boost::system::system_category());
        return boost::none;
      }
      if (n == 0) {  // the file shrank after the length was promised
        ec = boost::beast::http::error::short_read;
        return boost::none;
      }
      position_ += n;
      remain_ -= n;
      return {{const_buffers_type(buffer_.get(), n), remain_ > 0}};
    }

   private:
    static constexpr std::size_t kChunk = std::size_t{256} << 10;

    value_type& body_;
    std::uint64_t position_ = 0;
    std::uint64_t remain_ = 0;
    std::unique_ptr<char[]> buffer_ = std::make_unique<char[]>(kChunk);
  };
};

// A request body written to a file piece by piece as it is read. A failed write (a full disk)
// does not end the read: the rest of the body is read and dropped and `error` keeps the first
// failure, so that the client, still sending, gets an answer saying why rather than a reset.
struct SpoolBody {
  struct value_type {
    boost::beast::file file;         // opened for writing by the caller
    boost::beast::error_code error;  // the first write that failed; the file is then incomplete
  };

  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(boost::beast::http::header<isRequest, Fields>& /*header*/, value_type& body)
        : body_(body) {}

    void init(const boost::optional<std::uint64_t>& /*content_length*/,
              boost::beast::error_code& ec) {
      ec = {};
    }

    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, boost::beast::error_code& ec) {
      ec = {};
      std::size_t size = 0;
      for (auto it = boost::asio::buffer_sequence_begin(buffers);
           it != boost::asio::buffer_sequence_end(buffers); ++it) {
        const boost::asio::const_buffer buffer = *it;
        size += buffer.size();
        if (!body_.error) {
          body_.file.write(buffer.data(), buffer.size(), body_.error);
        }
      }
      return size;
    }

    void finish(boost::beast::error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

// The parts of a request the handler sees, but its body.
template <class Message>
HttpRequest RequestHead(const Message& message) {
  HttpRequest request{
      .method = std::string(message.method_string()),
      .target = std::string(message.target()),
      .content_type = std::string(message[boost::beast::http::field::content_type])};
  for (const auto& field : message) {
    std::string name(field.name_string());
    std::ranges::transform(name, name.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    request.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  return request;
}

// The status line and headers of `response`.
template <class Body>
void SetHead(boost::beast::http::response<Body>& message, const HttpResponse& response,
             bool keep_alive) {
  message.version(11);
  message.result(static_cast<unsigned>(response.status));
  message.set(boost::beast::http::field::server, "trainyard");
  if (!response.content_type.empty()) {
    message.set(boost::beast::http::field::content_type, response.content_type);
  }
  for (const auto& [name, value] : response.headers) {
    message.set(name, value);
  }
  message.keep_alive(keep_alive);
}

}  // namespace trainyard::server::internal
