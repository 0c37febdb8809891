// The storage v1 JSON API's resources and errors as GCS shapes them, for handlers.cc:
// `storage#object`, `storage#objects`, `storage#bucket`, `storage#buckets`, and the error body
//   {"error":{"code":404,"message":"…","errors":[{"message":"…","domain":"global",
//                                                "reason":"notFound"}]}}
// whose `message` gcloud prints. Links are absolute, on `base_url` ("http://HOST:PORT", the
// address the client used). Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "server/http_message.h"
#include "store/bucket_store.h"

namespace trainyard::server {

std::string ObjectJson(const store::ObjectInfo& object, std::string_view base_url);
std::string ObjectListJson(const store::ObjectListing& listing, std::string_view base_url);
std::string BucketJson(const store::BucketInfo& bucket, std::string_view base_url);
std::string BucketListJson(const std::vector<store::BucketInfo>& buckets,
                           std::string_view base_url);

// The GCS error response for `status` (not OK): 400 invalid, 404 notFound, 409 conflict (also
// for FAILED_PRECONDITION, as GCS answers a non-empty bucket's deletion), 416
// requestedRangeNotSatisfiable (OUT_OF_RANGE), 503 backendError, … A field violation becomes the
// error's `location`. A write the store refused because its preconditions did not hold
// (`store::IsConditionNotMet`) is `PreconditionFailedResponse()`.
HttpResponse StorageErrorResponse(const Status& status);

// GCS's 412 for a request precondition that did not hold (reason conditionNotMet).
HttpResponse PreconditionFailedResponse();

// "http://HOST" from the request's Host header (loopback when absent): where links point.
std::string BaseUrl(const HttpRequest& request);

// `text` with every byte but RFC 3986's unreserved ones percent-encoded ("a/b" is "a%2Fb").
std::string PercentEncode(std::string_view text);

}  // namespace trainyard::server
