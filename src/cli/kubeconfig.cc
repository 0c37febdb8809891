#include "cli/kubeconfig.h"

#include <fmt/format.h>

namespace trainyard::cli {

std::string Kubeconfig(std::string_view server, std::string_view namespace_name,
                       std::string_view token_file, std::string_view certificate_authority) {
  while (server.ends_with('/')) {
    server.remove_suffix(1);
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
      certificate_authority.empty()
          ? std::string()
          : fmt::format("    certificate-authority: \"{}\"\n", certificate_authority));
}

}  // namespace trainyard::cli
