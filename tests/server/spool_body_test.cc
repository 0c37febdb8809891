// SpoolBody (server/beast_messages.h): a request body written to a file as it is read. A write
// that fails (a full disk: /dev/full answers every write with ENOSPC) keeps its error and drops
// the rest of the body without failing the read, so the session can still answer the client.
#include <cerrno>
#include <string>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "server/beast_messages.h"

namespace trainyard::server::internal {
namespace {

namespace beast = boost::beast;

std::size_t Put(SpoolBody::value_type& body, const std::string& bytes, beast::error_code& ec) {
  beast::http::request_header<> header;
  SpoolBody::reader reader(header, body);
  reader.init(bytes.size(), ec);
  return reader.put(boost::asio::const_buffer(bytes.data(), bytes.size()), ec);
}

TEST(SpoolBody, WritesTheBodyToItsFile) {
  trainyard::testing::TempDir dir;
  SpoolBody::value_type body;
  beast::error_code ec;
  body.file.open(dir.File("spool").c_str(), beast::file_mode::write_new, ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(Put(body, "hello", ec), 5U);
  EXPECT_FALSE(ec);
  EXPECT_FALSE(body.error);
  EXPECT_EQ(body.file.size(ec), 5U);
}

TEST(SpoolBody, AFullDiskIsKeptAndTheRestOfTheBodyDropped) {
  SpoolBody::value_type body;
  beast::error_code ec;
  body.file.open("/dev/full", beast::file_mode::append_existing, ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(Put(body, std::string(1000, 'x'), ec), 1000U) << "consumed all the same";
  EXPECT_FALSE(ec) << "the read goes on";
  EXPECT_EQ(body.error.value(), ENOSPC);
  EXPECT_EQ(Put(body, "more", ec), 4U);
  EXPECT_FALSE(ec);
  EXPECT_EQ(body.error.value(), ENOSPC);
}

}  // namespace
}  // namespace trainyard::server::internal
