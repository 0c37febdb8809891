#include "store/job_tokens.h"

#include <array>
#include <cstring>
#include <string_view>
#include <vector>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base/base64.h"
#include "base/check.h"
#include "os/atomic_file.h"
#include "os/file_handle.h"
#include "os/random.h"

namespace trainyard::store {
namespace {

std::string Base64Url(std::string_view bytes) {
  return Base64Encode(bytes, Base64Alphabet::kUrlSafe);
}

Status KeyError(const std::string& path, std::string_view what) {
  return Status::FailedPrecondition("the job token key " + path + " " + std::string(what));
}

}  // namespace

Result<std::unique_ptr<JobTokens>> JobTokens::Open(const std::string& path) {
  std::array<unsigned char, 32> key{};
  Result<os::File> file = os::File::Open(path, os::OpenMode::kRead);
  if (!file.ok() && file.status().code() == Code::kNotFound) {
    Result<std::string> random = os::RandomBytes(key.size());
    if (!random.ok()) {
      return KeyError(path, "cannot be made: " + random.status().message());
    }
    // Whole or not at all: of two servers starting at once, one writes the key and the other
    // reads it.
    const Status published = os::PublishNewFile(path, *random, 0600);
    if (published.ok()) {
      std::memcpy(key.data(), random->data(), key.size());
      return std::unique_ptr<JobTokens>(new JobTokens(key));
    }
    if (published.code() != Code::kAlreadyExists) {
      return KeyError(path, "cannot be written: " + published.message());
    }
    file = os::File::Open(path, os::OpenMode::kRead);
  }
  if (!file.ok()) {
    return KeyError(path, "cannot be read: " + file.status().message());
  }
  std::array<char, 33> read{};
  Result<std::size_t> got = file->ReadAt(0, read.data(), read.size());
  if (!got.ok()) {
    return KeyError(path, "cannot be read: " + got.status().message());
  }
  if (*got != key.size()) {
    return KeyError(path,
                    "does not hold 32 bytes; remove it to make a new one (the tokens of "
                    "running jobs then stop working)");
  }
  std::memcpy(key.data(), read.data(), key.size());
  return std::unique_ptr<JobTokens>(new JobTokens(key));
}

std::string JobTokens::Issue(std::string_view project, std::string_view job_id) const {
  std::string message(project);
  message += '\0';
  message += job_id;
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  TY_CHECK(HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
                reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac.data(),
                &length) != nullptr)
      << "HMAC-SHA256 failed";
  return std::string(kJobTokenPrefix) + Base64Url(project) + "." + Base64Url(job_id) + "." +
         Base64Url(std::string_view(reinterpret_cast<const char*>(mac.data()), length));
}

std::optional<JobTokens::Subject> JobTokens::Verify(std::string_view token) const {
  if (!token.starts_with(kJobTokenPrefix) || token.size() > 512) {
    return std::nullopt;
  }
  std::vector<std::string_view> parts;
  std::string_view rest = token.substr(kJobTokenPrefix.size());
  for (std::size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
    parts.push_back(rest.substr(0, dot));
    rest.remove_prefix(dot + 1);
  }
  parts.push_back(rest);
  if (parts.size() != 3) {
    return std::nullopt;
  }
  std::optional<std::string> project = Base64Decode(parts[0], Base64Alphabet::kUrlSafe);
  std::optional<std::string> job_id = Base64Decode(parts[1], Base64Alphabet::kUrlSafe);
  if (!project || !job_id || project->empty() || job_id->empty()) {
    return std::nullopt;
  }
  const std::string expected = Issue(*project, *job_id);
  if (expected.size() != token.size() ||
      CRYPTO_memcmp(expected.data(), token.data(), token.size()) != 0) {
    return std::nullopt;
  }
  return Subject{*std::move(project), *std::move(job_id)};
}

std::string JobTokenKeyPath(std::string_view data_dir) {
  std::string path(data_dir);
  if (!path.empty() && path.back() != '/') {
    path += '/';
  }
  return path + "job-token.key";
}

}  // namespace trainyard::store
