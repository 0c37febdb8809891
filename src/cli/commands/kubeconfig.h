// `trainyard kubeconfig`: a kubeconfig whose cluster is the trainyard server, so the real
// `kubectl` (`KUBECONFIG=… kubectl apply -f tfjob.yaml`) talks to the same URL gcloud does.
#pragma once

#include <string>
#include <string_view>

namespace trainyard::cli {

// The kubeconfig YAML for `server` (an http:// or https:// URL; a trailing '/' is dropped), with
// `namespace_name` as the context's namespace (a trainyard project), and the user's token read
// from `token_file` when it is not empty (kubectl's `tokenFile`). Pure.
// `certificate_authority`, when not empty, is the CA file kubectl verifies an https server with.
// An http:// server's cluster says `insecure-skip-tls-verify: true`, without which the Node.js
// Kubernetes client refuses plain http (there is no TLS to verify); an https one never does.
std::string Kubeconfig(std::string_view server, std::string_view namespace_name,
                       std::string_view token_file = {},
                       std::string_view certificate_authority = {});

}  // namespace trainyard::cli
