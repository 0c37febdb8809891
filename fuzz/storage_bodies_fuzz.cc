// libFuzzer target for the storage API's request bodies (api/storage/rules.h), read with the one
// strict JSON reader in the storage dialect: an object's PATCH and write resource, a compose
// request, a bucket resource applied by patch or update, and buckets.insert's. Any text is
// accepted or refused; a refusal is INVALID_ARGUMENT whose violations each say what is wrong in
// valid UTF-8; an accepted compose has 1 to kMaxComposeSources sources, each named, with no
// negative generation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/storage/rules.h"
#include "base/check.h"
#include "base/utf8.h"

namespace trainyard::server {
namespace {

template <typename T>
void CheckRefusal(const Result<T>& parsed) {
  if (parsed.ok()) {
    return;
  }
  TY_CHECK(parsed.status().code() == Code::kInvalidArgument) << parsed.status().ToString();
  TY_CHECK(!parsed.status().violations().empty()) << parsed.status().ToString();
  for (const FieldViolation& violation : parsed.status().violations()) {
    TY_CHECK(!violation.description.empty()) << violation.field;
    TY_CHECK(IsValidUtf8(violation.description)) << violation.description;
  }
}

void FuzzOne(std::string_view text) {
  CheckRefusal(ParseObjectPatch(text));
  CheckRefusal(ParseObjectWrite(text));
  const Result<ComposeRequest> compose = ParseComposeRequest(text);
  CheckRefusal(compose);
  if (compose.ok()) {
    TY_CHECK(!compose->sources.empty() && compose->sources.size() <= kMaxComposeSources);
    for (const ComposeSource& source : compose->sources) {
      TY_CHECK(!source.name.empty());
      TY_CHECK(source.generation.value_or(0) >= 0 && source.if_generation_match.value_or(0) >= 0);
    }
  }
  const BucketFields current{.labels = {{"team", "ml"}}, .settings = {{"website", "{}"}}};
  CheckRefusal(ApplyBucketResource(current, text, BucketWrite::kPatch));
  CheckRefusal(ApplyBucketResource(current, text, BucketWrite::kReplace));
  CheckRefusal(ParseBucketInsert(text));
}

}  // namespace
}  // namespace trainyard::server

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::server::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
