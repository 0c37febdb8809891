// Each replica of a TFJob as a pod (kubectl get pods -l training.kubeflow.org/job-name=…), its
// logs (kubectl logs [-f]), and the service's messages about the TFJob as events (kubectl
// describe). Pods and logs stay readable after the job ends, whatever cleanPodPolicy says: they
// belong to the TFJob until it is deleted.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/kube/internal.h"
#include "api/kube/objects.h"
#include "api/kube/selectors.h"
#include "api/kube/watch.h"
#include "control/job_layout.h"
#include "kube/tables.h"
#include "kube/tfjob_mapping.h"
#include "logs/log_reader.h"
#include "logs/log_record.h"

namespace trainyard::server::kube_internal {
namespace {

using nlohmann::json;

Result<FoundPod> FindPod(const Context& context, const Request& request) {
  Result<std::vector<FoundPod>> pods =
      SelectedPods(context, request.namespace_name, Selector(), Selector());
  if (!pods.ok()) {
    return pods.status();
  }
  for (FoundPod& found : *pods) {
    if (found.pod.name == request.name) {
      return std::move(found);
    }
  }
  return Status::NotFound(request.name);
}

HttpResponse PodNotFound(const Status& status, std::string_view name) {
  return status.code() == Code::kNotFound ? Error(kube::NotFound("", "pods", name))
                                          : Error(kube::InternalError(status.message()));
}

// One record as `kubectl logs` prints it: the line, after its RFC 3339 time with --timestamps.
void AppendLine(std::string& out, const logs::LogRecord& record, bool timestamps) {
  if (timestamps) {
    out.append(record.timestamp);
    out += ' ';
  }
  out.append(record.text);
  out += '\n';
}

// The complete records in `text` (a part of a records file), appended as log lines; returns how
// many bytes they took (a partial last line is left for the next read).
std::size_t AppendRecords(std::string_view text, bool timestamps, std::string& out,
                          std::vector<std::string>* lines = nullptr) {
  std::size_t used = 0;
  while (true) {
    const std::size_t end = text.find('\n', used);
    if (end == std::string_view::npos) {
      return used;
    }
    if (std::optional<logs::LogRecord> record = logs::ParseRecord(text.substr(used, end - used))) {
      if (lines != nullptr) {
        std::string line;
        AppendLine(line, *record, timestamps);
        lines->push_back(std::move(line));
      } else {
        AppendLine(out, *record, timestamps);
      }
    }
    used = end + 1;
  }
}

// `kubectl logs -f`: what the replica writes, as it writes it, until its job has ended and the
// file is read to its end.
class LogFollow final : public ResponseStream {
 public:
  LogFollow(const Context& context, std::string project, std::string job_id, std::string path,
            std::uint64_t offset, bool timestamps)
      : context_(context),
        project_(std::move(project)),
        job_id_(std::move(job_id)),
        path_(std::move(path)),
        offset_(offset),
        timestamps_(timestamps) {}

  bool Poll(std::string& out) override {
    // The job's state first: what was written before it ended is then surely in the file. Read
    // through the controller, as every front-end reads a job by id.
    Result<model::Job> job = context_.controller.Get(project_, job_id_);
    const bool ended = !job.ok() || model::IsTerminal(job->state);
    const std::string text = logs::ReadWholeRecordsFrom(path_, offset_);
    offset_ += AppendRecords(text, timestamps_, out);
    return !ended;
  }

 private:
  const Context& context_;
  const std::string project_;
  const std::string job_id_;
  const std::string path_;
  std::uint64_t offset_;
  const bool timestamps_;
};

}  // namespace

Result<std::vector<FoundPod>> SelectedPods(const Context& context, std::string_view namespace_name,
                                           const Selector& labels, const Selector& fields) {
  Result<std::vector<store::RevisionedJob>> jobs =
      context.store.ListKubeObjects(namespace_name, kTFJobKind, 0, /*live_only=*/true, kMaxListed);
  if (!jobs.ok()) {
    return jobs.status();
  }
  std::vector<FoundPod> pods;
  for (store::RevisionedJob& job : *jobs) {
    for (kube::Pod& pod :
         kube::PodsOf(job.job, ReplicaViewsOf(context, job), context.options.node_name)) {
      const bool selected = labels.Matches(pod.labels) &&
                            fields.Matches([&](std::string_view key) -> std::optional<std::string> {
                              if (key == "metadata.name") {
                                return pod.name;
                              }
                              if (key == "metadata.namespace") {
                                return pod.namespace_name;
                              }
                              if (key == "status.phase") {
                                return pod.phase;
                              }
                              if (key == "spec.nodeName") {
                                return pod.node_name;
                              }
                              return std::nullopt;
                            });
      if (selected) {
        pods.push_back(FoundPod{job, std::move(pod)});
      }
    }
  }
  return pods;
}

HttpResponse ListPods(const Context& context, const Request& request) {
  Result<Selector> labels = SelectorOf(request, "labelSelector", true);
  Result<Selector> fields = SelectorOf(request, "fieldSelector", false);
  if (!labels.ok() || !fields.ok()) {
    return Error(
        kube::BadRequest(!labels.ok() ? labels.status().message() : fields.status().message()));
  }
  if (request.Flag("watch")) {
    return WatchPods(context, request, std::move(*labels), std::move(*fields));
  }
  const std::int64_t revision = CurrentRevision(context);
  Result<std::vector<FoundPod>> pods =
      SelectedPods(context, request.namespace_name, *labels, *fields);
  if (!pods.ok()) {
    return Error(kube::InternalError(pods.status().message()));
  }
  if (request.WantsTable()) {
    std::vector<kube::PodRow> rows;
    for (const FoundPod& found : *pods) {
      kube::PodRow row{.pod = found.pod};
      if (found.pod.creation_timestamp.has_value()) {
        row.age = std::chrono::duration_cast<Duration>(context.clock.Now() -
                                                       *found.pod.creation_timestamp);
      }
      rows.push_back(std::move(row));
    }
    return Json(kube::PodTable(rows, revision));
  }
  json items = json::array();
  for (const FoundPod& found : *pods) {
    items.push_back(json::parse(kube::EncodePod(found.pod)));
  }
  return Json(json{{"apiVersion", "v1"},
                   {"kind", "PodList"},
                   {"metadata", {{"resourceVersion", std::to_string(revision)}}},
                   {"items", std::move(items)}}
                  .dump());
}

HttpResponse GetPod(const Context& context, const Request& request) {
  Result<FoundPod> found = FindPod(context, request);
  if (!found.ok()) {
    return PodNotFound(found.status(), request.name);
  }
  if (request.WantsTable()) {
    kube::PodRow row{.pod = found->pod};
    if (found->pod.creation_timestamp.has_value()) {
      row.age = std::chrono::duration_cast<Duration>(context.clock.Now() -
                                                     *found->pod.creation_timestamp);
    }
    return Json(kube::PodTable({row}, found->job.revision));
  }
  return Json(kube::EncodePod(found->pod));
}

HttpResponse PodLog(const Context& context, const Request& request) {
  Result<FoundPod> found = FindPod(context, request);
  if (!found.ok()) {
    return PodNotFound(found.status(), request.name);
  }
  if (const std::string* container = request.Query("container");
      container != nullptr && !container->empty() && *container != kube::kContainerName) {
    return Error(
        kube::BadRequest("container " + *container + " is not valid for pod " + request.name));
  }
  const std::string path =
      control::JobLayout(context.options.data_dir, found->job.project, found->job.job.job_id)
          .log_path(found->pod.task_name);
  const bool timestamps = request.Flag("timestamps");
  std::string text = logs::ReadWholeRecordsFrom(path, 0);
  std::string body;
  std::size_t used = 0;
  if (const std::string* tail = request.Query("tailLines"); tail != nullptr) {
    std::vector<std::string> lines;
    used = AppendRecords(text, timestamps, body, &lines);
    std::size_t keep = lines.size();
    try {
      keep = std::min<std::size_t>(lines.size(), std::stoul(*tail));
    } catch (const std::exception&) {
      return Error(kube::BadRequest("tailLines must be a whole number"));
    }
    for (std::size_t i = lines.size() - keep; i < lines.size(); ++i) {
      body += lines[i];
    }
  } else {
    used = AppendRecords(text, timestamps, body);
  }
  HttpResponse response{.status = 200, .content_type = "text/plain", .body = std::move(body)};
  if (request.Flag("follow")) {
    // What is there now goes first, then the rest as it is written.
    class Prefixed final : public ResponseStream {
     public:
      Prefixed(std::string first, std::unique_ptr<LogFollow> rest)
          : first_(std::move(first)), rest_(std::move(rest)) {}
      bool Poll(std::string& out) override {
        if (!first_.empty()) {
          out += first_;
          first_.clear();
          return true;
        }
        return rest_->Poll(out);
      }

     private:
      std::string first_;
      std::unique_ptr<LogFollow> rest_;
    };
    response.stream = std::make_shared<Prefixed>(
        std::move(response.body),
        std::make_unique<LogFollow>(context, found->job.project, found->job.job.job_id, path, used,
                                    timestamps));
    response.poll_interval = std::chrono::milliseconds(200);
  }
  return response;
}

}  // namespace trainyard::server::kube_internal
