// libFuzzer target for the sharing policy's JSON (sched/sharing_json.h, issue #34): what
// `trainyard quota set` and the admin API send. The first byte picks the parser. Every input is
// accepted or refused without a crash; what is accepted comes back the same when encoded and
// decoded again (a quota, a memory quantity).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "catalog/catalog.h"
#include "sched/sharing_json.h"

namespace trainyard::sched {
namespace {

void FuzzOne(std::string_view input) {
  if (input.empty()) {
    return;
  }
  const char which = input.front();
  const std::string_view text = input.substr(1);
  const catalog::Catalog& catalog = catalog::Catalog::Builtin();
  switch (which % 3) {
    case 0: {
      const Result<ProjectQuota> quota = DecodeProjectQuota("p", text, catalog);
      if (quota.ok()) {
        const Result<ProjectQuota> again =
            DecodeProjectQuota("p", EncodeProjectQuota(*quota), catalog);
        TY_CHECK(again.ok()) << again.status().ToString();
        TY_CHECK(*again == *quota) << EncodeProjectQuota(*quota);
      }
      break;
    }
    case 1: {
      const Result<std::int64_t> mib = ParseMemoryMib(text);
      if (mib.ok()) {
        TY_CHECK(*mib > 0);
        const Result<std::int64_t> again = ParseMemoryMib(MemoryQuantity(*mib));
        TY_CHECK(again.ok() && *again == *mib) << MemoryQuantity(*mib);
      }
      break;
    }
    default: {
      const std::size_t cut = text.find('\n');
      const std::string_view name = cut == std::string_view::npos ? text : text.substr(0, cut);
      const std::string_view body =
          cut == std::string_view::npos ? std::string_view() : text.substr(cut + 1);
      const Result<int> value = DecodePriorityClass(name, body);
      if (value.ok()) {
        TY_CHECK(*value >= 0 && *value <= 1000) << *value;
      }
      break;
    }
  }
}

}  // namespace
}  // namespace trainyard::sched

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trainyard::sched::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));  // NOLINT
  return 0;
}
