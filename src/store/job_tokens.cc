#include "store/job_tokens.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/check.h"
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
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    Result<std::string> random = os::RandomBytes(key.size());
    if (!random.ok()) {
      return KeyError(path, "cannot be made: " + random.status().message());
    }
    std::memcpy(key.data(), random->data(), key.size());
    // O_EXCL: of two servers starting at once, one writes the key and the other reads it.
    const std::string temp = path + ".new." + std::to_string(::getpid());
    const int out = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    const bool written = out >= 0 &&
                         ::write(out, key.data(), key.size()) == static_cast<ssize_t>(key.size()) &&
                         ::fsync(out) == 0;
    if (out >= 0) {
      ::close(out);
    }
    if (!written || ::link(temp.c_str(), path.c_str()) != 0) {
      const int saved = errno;
      ::unlink(temp.c_str());
      if (saved != EEXIST) {
        return KeyError(path, std::string("cannot be written: ") + std::strerror(saved));
      }
    } else {
      ::unlink(temp.c_str());
      return std::unique_ptr<JobTokens>(new JobTokens(key));
    }
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    return KeyError(path, std::string("cannot be read: ") + std::strerror(errno));
  }
  std::array<unsigned char, 33> read{};
  const ssize_t got = ::read(fd, read.data(), read.size());
  ::close(fd);
  if (got != static_cast<ssize_t>(key.size())) {
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
