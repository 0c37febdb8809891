// libFuzzer target for what the server parses of a request before any handler (server/uri.h,
// router.h, multipart.h): request targets, path segments, routing, and multipart/related upload
// bodies. The first byte picks the parser. Every input must give a value or an error status
// (INVALID_ARGUMENT for bad syntax), and the router an answer with a status, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "server/multipart.h"
#include "server/router.h"
#include "server/uri.h"

namespace trainyard::server {
namespace {

const Router& TheRouter() {
  static const Router router = [] {
    Router r;
    const auto ok = [](const RoutedRequest& request) {
      std::string body;
      for (const auto& [name, value] : request.params) {
        body += name + "=" + value + ";";
      }
      return JsonResponse("{}");
    };
    r.Add({"GET", "/v1/projects/{project}/jobs", "jobs.list", {"pageSize", "filter"}, ok});
    r.Add({"POST", "/v1/projects/{project}/jobs/{jobId}:cancel", "jobs.cancel", {}, ok});
    r.Add({"GET", "/storage/v1/b/{bucket}/o/{object=**}", "storage.objects.get", {"alt"}, ok});
    r.Add({"POST",
           "/storage/v1/b/{a}/o/{b}/rewriteTo/b/{c}/o/{d}",
           "rewrite",
           {},
           ok,
           /*slashes_in_variables=*/true});
    return r;
  }();
  return router;
}

void FuzzOne(std::string_view input) {
  if (input.empty()) {
    return;
  }
  const char which = input.front();
  const std::string_view text = input.substr(1);
  switch (which % 4) {
    case 0: {
      const Result<Target> target = ParseTarget(text);
      TY_CHECK(target.ok() || target.status().code() == Code::kInvalidArgument);
      break;
    }
    case 1: {
      const Result<std::string> segment = DecodePathSegment(text, "x");
      TY_CHECK(segment.ok() || segment.status().code() == Code::kInvalidArgument);
      if (segment.ok()) {
        TY_CHECK(segment->find('/') == std::string::npos) << *segment;
      }
      const Result<std::string> rest = DecodePathRest(text, "x");
      TY_CHECK(rest.ok() || rest.status().code() == Code::kInvalidArgument);
      break;
    }
    case 2: {
      for (const char* method : {"GET", "POST"}) {
        const HttpRequest request{.method = method, .target = std::string(text)};
        const HttpResponse response = TheRouter().Dispatch(request);
        TY_CHECK(response.status >= 200 && response.status < 600) << response.status;
        TY_CHECK(!response.route.empty());
      }
      break;
    }
    default: {
      // The Content-Type up to the first newline, the body after it.
      const std::size_t newline = text.find('\n');
      const std::string_view content_type = text.substr(0, newline);
      const std::string_view body =
          newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
      const Result<MultipartRelated> parts =
          ParseMultipartRelated(content_type, body, body, body.size());
      if (parts.ok()) {
        TY_CHECK(parts->media_offset + parts->media_length <= body.size());
      } else {
        TY_CHECK(parts.status().code() == Code::kInvalidArgument) << parts.status().ToString();
      }
      break;
    }
  }
}

}  // namespace
}  // namespace trainyard::server

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::server::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
