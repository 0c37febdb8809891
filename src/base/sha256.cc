#include "base/sha256.h"

#include <array>

#include <openssl/evp.h>

namespace trainyard {

void Sha256::Free::operator()(evp_md_ctx_st* ctx) const {
  EVP_MD_CTX_free(ctx);
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) {
    ctx_.reset();
  }
}

Sha256::~Sha256() = default;

void Sha256::Add(std::string_view bytes) {
  EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size());
}

bool Sha256::AddStream(std::istream& in) {
  std::array<char, 65536> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    if (in.gcount() > 0) {
      Add(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
    }
  }
  return !in.bad();
}

std::string Sha256::Hex() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx_.get(), digest.data(), &size);
  constexpr std::string_view kDigits = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * std::size_t{size});
  for (unsigned int i = 0; i < size; ++i) {
    hex += kDigits[digest[i] >> 4];
    hex += kDigits[digest[i] & 0xf];
  }
  return hex;
}

}  // namespace trainyard
