// libFuzzer target for what a caller sends the access check (access/principal.h): the
// Authorization header, token names and `--expires`. The first byte picks the parser. Every input
// must be classified without a crash; a bearer token must be a token68 and come back the same
// when sent again in a canonical header; a name or expiry is accepted or refused on its field.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "access/principal.h"
#include "base/check.h"
#include "base/time_format.h"

namespace trainyard::access {
namespace {

void FuzzOne(std::string_view input) {
  if (input.empty()) {
    return;
  }
  const char which = input.front();
  const std::string_view text = input.substr(1);
  switch (which % 3) {
    case 0: {
      const Credential credential = ParseAuthorization(text);
      if (credential.kind == Credential::Kind::kBearer) {
        TY_CHECK(!credential.token.empty());
        const Credential again = ParseAuthorization("Bearer " + credential.token);
        TY_CHECK(again.kind == Credential::Kind::kBearer && again.token == credential.token)
            << credential.token;
      } else {
        TY_CHECK(credential.token.empty());
      }
      if (IsTokenSyntax(text)) {
        TY_CHECK(ParseAuthorization("bearer " + std::string(text)).token == text);
      }
      break;
    }
    case 1: {
      const auto violation = CheckTokenName(text, "NAME");
      TY_CHECK(!violation || violation->field == "NAME");
      TY_CHECK(violation || (!text.empty() && text.size() <= 64));
      break;
    }
    default: {
      const WallTime now = *ParseTimestamp("2026-01-01T00:00:00Z");
      const Result<WallTime> expiry = ParseExpiry(text, now);
      if (expiry.ok()) {
        TY_CHECK(*expiry > now);
      } else {
        TY_CHECK(expiry.status().violations().size() == 1 &&
                 expiry.status().violations()[0].field == "expires");
      }
      break;
    }
  }
}

}  // namespace
}  // namespace trainyard::access

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::access::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
