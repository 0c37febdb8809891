#include "cli/commands/kubeconfig.h"

#include <fmt/format.h>

namespace trainyard::cli {

std::string Kubeconfig(std::string_view server, std::string_view namespace_name,
                       std::string_view token_file, std::string_view certificate_authority) {
  while (server.ends_with('/')) {
    server.remove_suffix(1);
  }
  // The Node.js client (@kubernetes/client-node) refuses a plain-http server unless the cluster
  // says `insecure-skip-tls-verify: true`; kubectl and the Python client ignore it on http
  // (docs/reference/kubeflow-tfjob.md §12). An https server is always verified.
  std::string cluster_extra =
      server.starts_with("http://") ? std::string("    insecure-skip-tls-verify: true\n") : "";
  if (!certificate_authority.empty()) {
    cluster_extra += fmt::format("    certificate-authority: \"{}\"\n", certificate_authority);
  }
  // Double-quoted YAML scalars: a URL or name with ':' or '#' stays one value.
  return fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: trainyard\n"
      "  cluster:\n"
      "    server: \"{0}\"\n{3}"
      "users:\n"
      "- name: trainyard\n"
      "  user: {2}\n"
      "contexts:\n"
      "- name: trainyard\n"
      "  context:\n"
      "    cluster: trainyard\n"
      "    user: trainyard\n"
      "    namespace: \"{1}\"\n"
      "current-context: trainyard\n",
      server, namespace_name,
      token_file.empty() ? std::string("{}") : fmt::format("{{tokenFile: \"{}\"}}", token_file),
      cluster_extra);
}

}  // namespace trainyard::cli
