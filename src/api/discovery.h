// Google's API Discovery Service for the APIs trainyard serves, so that clients that build
// themselves from a discovery document (Google's Python client, `googleapiclient.discovery.build`)
// work unchanged:
//
//   GET /discovery/v1/apis/{api}/{version}/rest   the document of `api` `version`
//   GET /$discovery/rest?version={version}        the same for ml, the API at the server's root
//                                                 (what newer clients ask
//                                                 https://ml.googleapis.com)
//
// The documents are data (api/discovery_data/{api}_{version}.json); only their rootUrl and
// baseUrl (rootUrl + servicePath) are filled in, with the host the request reached. ml_v1.json has
// the shape of Google's ml v1 document (docs/reference/ai-platform-training.md [V-schema]:
// google-api-go-client's ml/v1/ml-api.json), trimmed to the methods trainyard serves and the
// fields its codec reads; aiplatform_v1.json the shape of Google's aiplatform v1 document (the
// method ids, paths and parameters of the apitools client gcloud ships, aiplatform_v1_client.py),
// trimmed to custom and hyperparameter tuning jobs; storage_v1.json is Google's storage v1
// document (the one the Cloud SDK ships, apitools' samples/storage_sample/storage_v1.json)
// trimmed to the bucket and object methods trainyard serves, the fields it keeps and the system
// parameters the router takes, its uploads at /upload/storage/v1 and /resumable/upload/storage/v1
// of this host (mediaUpload.protocols); logging_v2.json Google's logging v2 document
// (google-api-python-client's discovery_cache/documents/logging.v2.json) trimmed to entries.list
// and the LogEntry fields trainyard writes; trainyard_v1.json is trainyard's own API (the
// api/trainyard/*.h routes: a job's replicas and suspension, the cluster view, the caller,
// the sharing policy) in the same format, servicePath trainyard/v1/, written from those handlers'
// request and response shapes. tests/integration/discovery_test.cc checks each method
// against the router (its path, or a media upload's upload paths, and its query parameters);
// tests/api/discovery_schemas_test.cc each resource schema against its codec (every member the
// encoder writes is a property, every property a field the codec knows; of trainyard v1's, the
// sharing policy's (sched/sharing_json.h) and every other answer (api/trainyard/encode.h)). Like
// Google's, they are public: served without a token. An unknown API or version is NOT_FOUND in
// Google's error shape.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "server/router.h"

namespace trainyard::server {

// Adds the discovery routes, open to anyone (public, they read nothing); `scheme` ("http" or
// "https") is how clients reach this server.
void AddDiscoveryRoutes(Router& router, const std::string& scheme);

// The document of `api` `version` with its URLs under `root_url` ("http://127.0.0.1:8080/");
// NOT_FOUND when trainyard serves no such API version.
Result<std::string> DiscoveryDocument(std::string_view api, std::string_view version,
                                      std::string_view root_url);

}  // namespace trainyard::server
