#include "store/hashes.h"

#include <array>
#include <cctype>
#include <vector>

#include <openssl/evp.h>

#include "base/check.h"

namespace trainyard::store::internal {
namespace {

// The reflected Castagnoli polynomial (RFC 3720 §B.4).
constexpr std::uint32_t kCastagnoli = 0x82F63B78;

constexpr std::array<std::uint32_t, 256> MakeCrcTable() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1U) != 0 ? (crc >> 1) ^ kCastagnoli : crc >> 1;
    }
    table[i] = crc;
  }
  return table;
}

constexpr std::array<std::uint32_t, 256> kCrcTable = MakeCrcTable();
constexpr std::size_t kReadChunk = std::size_t{1} << 20;

}  // namespace

struct ObjectHasher::Md5 {
  struct Free {
    void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
  };
  std::unique_ptr<EVP_MD_CTX, Free> ctx{EVP_MD_CTX_new()};
};

ObjectHasher::ObjectHasher() : md5_(std::make_unique<Md5>()) {
  TY_CHECK(md5_->ctx != nullptr && EVP_DigestInit_ex(md5_->ctx.get(), EVP_md5(), nullptr) == 1)
      << "OpenSSL cannot compute MD5";
}

ObjectHasher::~ObjectHasher() = default;

void ObjectHasher::Update(std::string_view bytes) {
  TY_CHECK(EVP_DigestUpdate(md5_->ctx.get(), bytes.data(), bytes.size()) == 1);
  crc_ = ExtendCrc32c(crc_, bytes);
  size_ += static_cast<std::int64_t>(bytes.size());
}

ObjectHashes ObjectHasher::Finish() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  TY_CHECK(EVP_DigestFinal_ex(md5_->ctx.get(), digest.data(), &length) == 1);
  const std::array<char, 4> crc = {static_cast<char>(crc_ >> 24), static_cast<char>(crc_ >> 16),
                                   static_cast<char>(crc_ >> 8), static_cast<char>(crc_)};
  return ObjectHashes{.size = size_,
                      .md5_base64 = Base64Encode(
                          std::string_view(reinterpret_cast<const char*>(digest.data()), length)),
                      .crc32c_base64 = Base64Encode(std::string_view(crc.data(), crc.size()))};
}

std::uint32_t ExtendCrc32c(std::uint32_t crc, std::string_view bytes) {
  crc = ~crc;
  for (const char c : bytes) {
    crc = kCrcTable[(crc ^ static_cast<unsigned char>(c)) & 0xFFU] ^ (crc >> 8);
  }
  return ~crc;
}

ObjectHashes HashBytes(std::string_view bytes) {
  ObjectHasher hasher;
  hasher.Update(bytes);
  return hasher.Finish();
}

Result<ObjectHashes> HashFile(const std::string& path) {
  Result<os::File> file = os::File::Open(path, os::OpenMode::kRead);
  if (!file.ok()) {
    return Status::Unavailable(file.status().message());
  }
  return HashFile(*file);
}

Result<ObjectHashes> HashFile(const os::File& file) {
  ObjectHasher hasher;
  std::vector<char> buffer(kReadChunk);
  std::uint64_t position = 0;
  while (true) {
    Result<std::size_t> got = file.ReadAt(position, buffer.data(), buffer.size());
    if (!got.ok()) {
      return Status::Unavailable(got.status().message());
    }
    if (*got == 0) {
      break;
    }
    position += *got;
    hasher.Update(std::string_view(buffer.data(), *got));
  }
  return hasher.Finish();
}

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool padding =
        c == '=' && i + 2 >= text.size() && (i + 1 == text.size() || text[i + 1] == '=');
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && !padding) {
      return std::nullopt;
    }
  }
  std::string out(3 * (text.size() / 4), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) {
    return std::nullopt;
  }
  // EVP_DecodeBlock counts the padding as zero bytes.
  const std::size_t padding = text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0;
  out.resize(static_cast<std::size_t>(n) - padding);
  return out;
}

}  // namespace trainyard::store::internal
