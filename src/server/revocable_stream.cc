#include "server/revocable_stream.h"

#include <utility>

namespace trainyard::server {
namespace {

class Revocable final : public ResponseStream {
 public:
  Revocable(std::shared_ptr<ResponseStream> inner, std::function<bool()> still_valid,
            const Clock& clock, std::chrono::milliseconds recheck)
      : inner_(std::move(inner)),
        still_valid_(std::move(still_valid)),
        clock_(clock),
        recheck_(recheck),
        next_check_(clock.Monotonic() + recheck) {}

  bool Poll(std::string& out) override {
    if (clock_.Monotonic() >= next_check_) {
      next_check_ = clock_.Monotonic() + recheck_;
      if (!still_valid_()) {
        return false;  // the caller may no longer read what the stream would send next
      }
    }
    return inner_->Poll(out);
  }

 private:
  const std::shared_ptr<ResponseStream> inner_;
  const std::function<bool()> still_valid_;
  const Clock& clock_;
  const std::chrono::milliseconds recheck_;
  MonoTime next_check_;
};

}  // namespace

std::shared_ptr<ResponseStream> RevocableStream(std::shared_ptr<ResponseStream> inner,
                                                std::function<bool()> still_valid,
                                                const Clock& clock,
                                                std::chrono::milliseconds recheck) {
  return std::make_shared<Revocable>(std::move(inner), std::move(still_valid), clock, recheck);
}

}  // namespace trainyard::server
