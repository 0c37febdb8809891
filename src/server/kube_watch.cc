#include "server/kube_watch.h"

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "server/kube_objects.h"

namespace trainyard::server::kube_internal {
namespace {

using nlohmann::json;

constexpr int kBatch = 200;
constexpr std::chrono::seconds kDefaultTimeout{1800};

class TFJobWatch final : public ResponseStream {
 public:
  TFJobWatch(const Context& context, std::string namespace_name, Selector labels, Selector fields,
             std::int64_t after, bool table, MonoTime deadline)
      : context_(context),
        namespace_(std::move(namespace_name)),
        labels_(std::move(labels)),
        fields_(std::move(fields)),
        after_(after),
        table_(table),
        deadline_(deadline) {}

  bool Poll(std::string& out) override {
    if (context_.clock.Monotonic() >= deadline_) {
      return false;
    }
    Result<std::vector<store::RevisionedJob>> changed =
        context_.store.ListKubeObjects(namespace_, kTFJobKind, after_, /*live_only=*/false, kBatch);
    if (!changed.ok()) {
      return false;  // the watch ends; kubectl lists and watches again
    }
    for (const store::RevisionedJob& job : *changed) {
      after_ = job.revision;
      if (!SelectsTFJob(labels_, fields_, job)) {
        continue;
      }
      const std::string& uid = job.job.extras->kube->uid;
      std::string type = "MODIFIED";
      if (!store::IsLiveKubeObject(job.job)) {
        if (seen_.erase(uid) == 0) {
          continue;  // never shown to this watcher
        }
        type = "DELETED";
      } else if (seen_.insert(uid).second) {
        type = "ADDED";
      }
      json object = table_ ? json::parse(kube::TFJobTable({TableRowOf(context_, job)}, after_))
                           : json::parse(RenderTFJob(context_, job));
      out += json{{"type", type}, {"object", std::move(object)}}.dump();
      out += '\n';
    }
    return true;
  }

  // The objects a watch from `after` already knows (they were in the list it came from).
  void Know(std::string uid) { seen_.insert(std::move(uid)); }

 private:
  const Context& context_;
  const std::string namespace_;
  const Selector labels_;
  const Selector fields_;
  std::int64_t after_;
  const bool table_;
  const MonoTime deadline_;
  std::set<std::string> seen_;
};

}  // namespace

HttpResponse WatchTFJobs(const Context& context, const Request& request, Selector labels,
                         Selector fields) {
  std::int64_t after = 0;
  if (const std::string* version = request.Query("resourceVersion");
      version != nullptr && !version->empty()) {
    try {
      std::size_t used = 0;
      after = std::stoll(*version, &used);
      if (used != version->size() || after < 0) {
        throw std::invalid_argument("not a revision");
      }
    } catch (const std::exception&) {
      return Error(
          kube::BadRequest("resourceVersion \"" + *version + "\" is not one this server gave"));
    }
  }
  std::chrono::seconds timeout = kDefaultTimeout;
  if (const std::string* seconds = request.Query("timeoutSeconds"); seconds != nullptr) {
    try {
      timeout = std::chrono::seconds(std::max(0LL, std::stoll(*seconds)));
    } catch (const std::exception&) {
      return Error(kube::BadRequest("timeoutSeconds must be a whole number of seconds"));
    }
  }
  auto watch = std::make_shared<TFJobWatch>(context, request.namespace_name, std::move(labels),
                                            std::move(fields), after, request.WantsTable(),
                                            context.clock.Monotonic() + timeout);
  if (after > 0) {
    // A watch resuming from a list: the live objects written up to `after` are known to the
    // client, so their next change is MODIFIED, their deletion DELETED.
    Result<std::vector<store::RevisionedJob>> known = context.store.ListKubeObjects(
        request.namespace_name, kTFJobKind, 0, /*live_only=*/true, 1000);
    if (known.ok()) {
      for (const store::RevisionedJob& job : *known) {
        if (job.revision <= after) {
          watch->Know(job.job.extras->kube->uid);
        }
      }
    }
  }
  return HttpResponse{.status = 200,
                      .content_type = "application/json",
                      .stream = std::move(watch),
                      .poll_interval = std::chrono::milliseconds(250)};
}

}  // namespace trainyard::server::kube_internal
