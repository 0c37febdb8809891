// libFuzzer target for the TFJob decoder (kube/tfjob_decode.h), the parser behind every kubectl
// create, apply and patch. Every input must give a TFJob or a Kubernetes error with a readable
// message, never a crash; a decoded TFJob must validate without crashing, and its encoding (with
// the operator's defaults) must decode again and encode the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "base/utf8.h"
#include "kube/tfjob_decode.h"
#include "kube/tfjob_validate.h"

namespace trainyard::kube {
namespace {

void FuzzOne(std::string_view text) {
  const KubeResult<DecodedTFJob> decoded = DecodeTFJob(text);
  if (!decoded.ok()) {
    TY_CHECK(decoded.error().code == 400) << decoded.error().message;
    TY_CHECK(IsValidUtf8(EncodeStatus(decoded.error()))) << decoded.error().message;
    return;
  }
  for (const StatusCause& cause : ValidateTFJob(decoded->job, nullptr)) {
    TY_CHECK(!cause.field.empty() || !cause.message.empty());
  }
  const std::string encoded = EncodeTFJob(decoded->job, nullptr);
  const KubeResult<DecodedTFJob> again = DecodeTFJob(encoded);
  TY_CHECK(again.ok()) << again.error().message << "\n" << encoded;
  TY_CHECK(EncodeTFJob(again->job, nullptr) == encoded) << encoded;
}

}  // namespace
}  // namespace trainyard::kube

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::kube::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
