// kubectl's protobuf authorization reviews (kube/review_proto.h) read into their JSON form.
#include "kube/review_proto.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::kube {
namespace {

using nlohmann::json;

// A length-delimited protobuf field (numbers and lengths below 128: one byte each).
std::string Len(int number, const std::string& bytes) {
  return std::string(1, static_cast<char>((number << 3) | 2)) +
         std::string(1, static_cast<char>(bytes.size())) + bytes;
}

std::string Envelope(const std::string& kind, const std::string& spec) {
  const std::string type = Len(1, "authorization.k8s.io/v1") + Len(2, kind);
  // metadata as kubectl sends it (empty strings), the spec, an empty status
  const std::string object = Len(1, Len(1, "") + Len(2, "")) + Len(2, spec) + Len(3, "");
  return std::string("k8s\0", 4) + Len(1, type) + Len(2, object);
}

TEST(ReviewProtoTest, ReadsWhatKubectlSends) {
  const struct {
    std::string body;
    json want;
  } cases[] = {
      {Envelope("SelfSubjectAccessReview",
                Len(1, Len(1, "team-a") + Len(2, "create") + Len(3, "kubeflow.org") + Len(4, "") +
                           Len(5, "tfjobs") + Len(6, "") + Len(7, "x") +
                           std::string("\x38\x00", 2))),  // a varint field is skipped
       {{"kind", "SelfSubjectAccessReview"},
        {"apiVersion", "authorization.k8s.io/v1"},
        {"spec",
         {{"resourceAttributes",
           {{"namespace", "team-a"},
            {"verb", "create"},
            {"group", "kubeflow.org"},
            {"version", ""},
            {"resource", "tfjobs"},
            {"subresource", ""},
            {"name", "x"}}}}}}},
      {Envelope("SelfSubjectAccessReview", Len(2, Len(1, "/api") + Len(2, "get"))),
       {{"kind", "SelfSubjectAccessReview"},
        {"apiVersion", "authorization.k8s.io/v1"},
        {"spec", {{"nonResourceAttributes", {{"path", "/api"}, {"verb", "get"}}}}}}},
      {Envelope("SelfSubjectRulesReview", Len(1, "team-a")),
       {{"kind", "SelfSubjectRulesReview"},
        {"apiVersion", "authorization.k8s.io/v1"},
        {"spec", {{"namespace", "team-a"}}}}},
  };
  for (const auto& c : cases) {
    KubeResult<std::string> read = ReviewProtoToJson(c.body);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(json::parse(*read), c.want);
  }
}

TEST(ReviewProtoTest, RefusesWhatItCannotRead) {
  const std::string good = Envelope("SelfSubjectRulesReview", Len(1, "p"));
  const struct {
    std::string body;
    std::string message;
  } cases[] = {
      {"{\"kind\":\"SelfSubjectRulesReview\"}",
       "the protobuf body does not start with Kubernetes's envelope (\"k8s\\0\")"},
      {good.substr(0, good.size() - 3),
       "the protobuf body is not a readable runtime.Unknown envelope"},
      {Envelope("Pod", ""),
       "trainyard reads protobuf only for SelfSubjectAccessReview and "
       "SelfSubjectRulesReview, not \"Pod\"; send JSON"},
      {Envelope("SelfSubjectAccessReview", Len(1, "\x0a\x09short")),
       "the protobuf body is not a readable spec.resourceAttributes"},
  };
  for (const auto& c : cases) {
    KubeResult<std::string> read = ReviewProtoToJson(c.body);
    ASSERT_FALSE(read.ok()) << c.message;
    EXPECT_EQ(read.error().code, 400);
    EXPECT_EQ(read.error().message, c.message);
  }
}

}  // namespace
}  // namespace trainyard::kube
