#include "access/project_identity.h"

#include <cstdint>
#include <string>

#include "base/fnv1a.h"

namespace trainyard::access {

std::string ProjectNumber(std::string_view project) {
  constexpr std::uint64_t kFirst = 100'000'000'000ULL;  // the smallest 12-digit number
  constexpr std::uint64_t kCount = 900'000'000'000ULL;  // how many 12-digit numbers there are
  return std::to_string(kFirst + Fnv1a(project) % kCount);
}

ProjectIdentity IdentityOf(std::string_view project) {
  std::string number = ProjectNumber(project);
  std::string tpu = "service-" + number + "@cloud-tpu.iam.gserviceaccount.com";
  return {.number = std::move(number),
          .service_account = "trainyard@" + std::string(project) + ".iam.gserviceaccount.com",
          .tpu_service_account = std::move(tpu)};
}

}  // namespace trainyard::access
