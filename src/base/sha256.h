// SHA-256 of bytes given in pieces, as lowercase hex: the content digests of uploaded packages
// (cli) and of the package cache's keys (run/local). OpenSSL underneath.
#pragma once

#include <istream>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace trainyard {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  // False when OpenSSL could not set the digest up (then nothing else may be called).
  bool ok() const { return ctx_ != nullptr; }
  void Add(std::string_view bytes);
  // Adds everything `in` reads until its end; false when reading failed (`in.bad()`).
  bool AddStream(std::istream& in);
  // The digest of all that was added, in lowercase hex. Call once.
  std::string Hex();

 private:
  struct Free {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> ctx_;
};

}  // namespace trainyard
