// JsonMember (server/json_member.h): the answers a parsed document would give, without one.
#include "server/json_member.h"

#include <string_view>

#include <gtest/gtest.h>

namespace trainyard::server {
namespace {

TEST(JsonMemberTest, ReadsATopLevelStringMemberAsAParsedDocumentWould) {
  const struct {
    std::string_view text;
    std::string_view expected;
  } cases[] = {
      {R"({"jobId":"a","labels":{"k":"v"}})", "a"},
      {R"( { "labels" : {"jobId":"b"}, "jobId" : "a" } )", "a"},
      {R"({"labels":{"jobId":"b"}})", ""},
      {R"({"x":[1,{"jobId":"c"}],"y":["jobId","d"]})", ""},
      {R"({"jobId":1})", ""},
      {R"({"jobId":["a"]})", ""},
      {R"({"jobId":{"jobId":"a"}})", ""},
      {R"({"jobId":"a","jobId":"b"})", "b"},
      {R"({"jobId":"a","jobId":null})", ""},
      {R"({"jobId":"a\"b\u00e9"})", "a\"b\xc3\xa9"},
      {R"([{"jobId":"a"}])", ""},
      {R"("jobId")", ""},
      {R"({"jobId":"a")", ""},
      {R"({"jobId":"a"} trailing)", ""},
      {"", ""},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(JsonMember(c.text, "jobId"), c.expected) << c.text;
  }
}

}  // namespace
}  // namespace trainyard::server
