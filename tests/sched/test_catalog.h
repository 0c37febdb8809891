// What the scheduler's tests share: the builtin catalog and the accelerator types they place.
#pragma once

#include "catalog/catalog.h"

namespace trainyard::sched {

inline const catalog::Catalog& Catalog() {
  return catalog::Catalog::Builtin();
}

inline constexpr char kT4[] = "NVIDIA_TESLA_T4";
inline constexpr char kV100[] = "NVIDIA_TESLA_V100";

}  // namespace trainyard::sched
