#include "api/kube/watch.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "api/kube/objects.h"
#include "kube/pod_changes.h"

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

// The pods of the live TFJobs, polled: each poll derives them again and says what changed since
// the last (kube/pod_changes.h).
class PodWatch final : public ResponseStream {
 public:
  PodWatch(const Context& context, std::string namespace_name, Selector labels, Selector fields,
           bool table, MonoTime deadline)
      : context_(context),
        namespace_(std::move(namespace_name)),
        labels_(std::move(labels)),
        fields_(std::move(fields)),
        table_(table),
        deadline_(deadline) {}

  bool Poll(std::string& out) override {
    if (context_.clock.Monotonic() >= deadline_) {
      return false;
    }
    std::optional<std::vector<kube::PodChange>> changes = Advance();
    if (!changes.has_value()) {
      return false;  // the watch ends; kubectl lists and watches again
    }
    const std::int64_t revision = CurrentRevision(context_);
    for (const kube::PodChange& change : *changes) {
      json object;
      if (table_) {
        kube::PodRow row{.pod = change.pod};
        if (change.pod.creation_timestamp.has_value()) {
          row.age = std::chrono::duration_cast<Duration>(context_.clock.Now() -
                                                         *change.pod.creation_timestamp);
        }
        object = json::parse(kube::PodTable({row}, revision));
      } else {
        object = json::parse(kube::EncodePod(change.pod));
      }
      out += json{{"type", change.type}, {"object", std::move(object)}}.dump();
      out += '\n';
    }
    return true;
  }

  // The pods now, against those last sent, which they then become; nullopt when they cannot be
  // read.
  std::optional<std::vector<kube::PodChange>> Advance() {
    Result<std::vector<FoundPod>> pods = SelectedPods(context_, namespace_, labels_, fields_);
    if (!pods.ok()) {
      return std::nullopt;
    }
    std::map<std::string, kube::Pod> now;
    for (FoundPod& found : *pods) {
      std::string key = found.pod.namespace_name + "/" + found.pod.name;
      now.emplace(std::move(key), std::move(found.pod));
    }
    std::vector<kube::PodChange> changes = kube::PodChanges(sent_, now);
    sent_ = std::move(now);
    return changes;
  }

 private:
  const Context& context_;
  const std::string namespace_;
  const Selector labels_;
  const Selector fields_;
  const bool table_;
  const MonoTime deadline_;
  std::map<std::string, kube::Pod> sent_;
};

struct Window {
  std::int64_t after = 0;  // the resourceVersion to watch from; 0 for everything
  MonoTime deadline{};
};

// `resourceVersion` and `timeoutSeconds`; INVALID_ARGUMENT saying which is wrong.
Result<Window> WindowOf(const Context& context, const Request& request) {
  Window window;
  if (const std::string* version = request.Query("resourceVersion");
      version != nullptr && !version->empty()) {
    try {
      std::size_t used = 0;
      window.after = std::stoll(*version, &used);
      if (used != version->size() || window.after < 0) {
        throw std::invalid_argument("not a revision");
      }
    } catch (const std::exception&) {
      return Status::InvalidArgument("resourceVersion \"" + *version +
                                     "\" is not one this server gave");
    }
  }
  std::chrono::seconds timeout = kDefaultTimeout;
  if (const std::string* seconds = request.Query("timeoutSeconds"); seconds != nullptr) {
    try {
      timeout = std::chrono::seconds(std::max(0LL, std::stoll(*seconds)));
    } catch (const std::exception&) {
      return Status::InvalidArgument("timeoutSeconds must be a whole number of seconds");
    }
  }
  window.deadline = context.clock.Monotonic() + timeout;
  return window;
}

// Calls `visit` with each TFJob of `namespace_name` written after `from` (only live ones with
// `live_only`), oldest write first, a batch at a time; stops early when the store cannot be read.
void ForEachKubeObject(const Context& context, const std::string& namespace_name, std::int64_t from,
                       bool live_only,
                       const std::function<void(const store::RevisionedJob&)>& visit) {
  for (std::int64_t after = from;;) {
    Result<std::vector<store::RevisionedJob>> batch =
        context.store.ListKubeObjects(namespace_name, kTFJobKind, after, live_only, kBatch);
    if (!batch.ok() || batch->empty()) {
      return;
    }
    for (const store::RevisionedJob& job : *batch) {
      visit(job);
      after = job.revision;
    }
    if (batch->size() < static_cast<std::size_t>(kBatch)) {
      return;
    }
  }
}

HttpResponse Streamed(std::shared_ptr<ResponseStream> watch) {
  return HttpResponse{.status = 200,
                      .content_type = "application/json",
                      .stream = std::move(watch),
                      .poll_interval = std::chrono::milliseconds(250)};
}

}  // namespace

HttpResponse WatchTFJobs(const Context& context, const Request& request, Selector labels,
                         Selector fields) {
  Result<Window> window = WindowOf(context, request);
  if (!window.ok()) {
    return Error(kube::BadRequest(window.status().message()));
  }
  const std::int64_t after = window->after;
  auto watch = std::make_shared<TFJobWatch>(context, request.namespace_name, std::move(labels),
                                            std::move(fields), after, request.WantsTable(),
                                            window->deadline);
  if (after > 0) {
    // A watch resuming from a list: the client knows the objects that were live at `after`. Those
    // live now and unchanged since are known; so are those that left the API since `after`,
    // which may have been live then (a TFJob deleted between `kubectl delete`'s list and its
    // watch: without this its DELETED was never said and kubectl waited for ever). At worst a
    // client hears DELETED for an object created and deleted after its list, which it ignores.
    ForEachKubeObject(context, request.namespace_name, 0, /*live_only=*/true,
                      [&](const store::RevisionedJob& job) {
                        if (job.revision <= after) {
                          watch->Know(job.job.extras->kube->uid);
                        }
                      });
    ForEachKubeObject(context, request.namespace_name, after, /*live_only=*/false,
                      [&](const store::RevisionedJob& job) {
                        if (!store::IsLiveKubeObject(job.job)) {
                          watch->Know(job.job.extras->kube->uid);
                        }
                      });
  }
  return Streamed(std::move(watch));
}

HttpResponse WatchPods(const Context& context, const Request& request, Selector labels,
                       Selector fields) {
  Result<Window> window = WindowOf(context, request);
  if (!window.ok()) {
    return Error(kube::BadRequest(window.status().message()));
  }
  auto watch =
      std::make_shared<PodWatch>(context, request.namespace_name, std::move(labels),
                                 std::move(fields), request.WantsTable(), window->deadline);
  if (window->after > 0) {
    // Resuming from a list: the client has the pods as they are now (pods have no revisions
    // of their own; a change between the list and this moment is not said).
    watch->Advance();
  }
  return Streamed(std::move(watch));
}

}  // namespace trainyard::server::kube_internal
