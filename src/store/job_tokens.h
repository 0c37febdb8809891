// Replicas' own tokens (issue #17): each job's replicas get a token (`$TRAINYARD_TOKEN`) that
// works as an editor of the job's project, so a trainer can use the storage API (and the
// trainyard CLI) of a server that checks tokens. The token names its job and carries an
// HMAC-SHA256 of it under a key kept in the data dir (created with 32 random bytes, mode 0600):
// "tyj." + base64url(project) + "." + base64url(job id) + "." + base64url(MAC). Nothing is
// stored per job; the server honours a token only while its job has not ended, so it dies with
// the job. Thread-safe.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace trainyard::store {

inline constexpr std::string_view kJobTokenPrefix = "tyj.";

class JobTokens {
 public:
  // Reads the key at `path`, creating it first when missing. FAILED_PRECONDITION naming the file
  // when it cannot be read or written, or does not hold 32 bytes.
  static Result<std::unique_ptr<JobTokens>> Open(const std::string& path);

  std::string Issue(std::string_view project, std::string_view job_id) const;

  struct Subject {
    std::string project;
    std::string job_id;
  };
  // The job `token` was issued for under this key; nullopt for anything else.
  std::optional<Subject> Verify(std::string_view token) const;

 private:
  explicit JobTokens(const std::array<unsigned char, 32>& key) : key_(key) {}
  std::array<unsigned char, 32> key_;
};

// The key file in data dir `data_dir`.
std::string JobTokenKeyPath(std::string_view data_dir);

}  // namespace trainyard::store
