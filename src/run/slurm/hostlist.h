// Slurm host lists (pure): "n[1-3,5],gpu-[01-02],login" -> n1 n2 n3 n5 gpu-01 gpu-02 login, as
// `scontrol show hostnames` expands them (zero padding kept: [08-10] -> 08 09 10; several
// bracket groups in one name multiply out: r[1-2]n[1-2] -> r1n1 r1n2 r2n1 r2n2).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trainyard::run::slurm {

// INVALID_ARGUMENT naming the problem: unbalanced brackets, an empty name, a range whose end is
// before its start or that is not digits, a list that would expand past `max_hosts` names.
Result<std::vector<std::string>> ExpandHostlist(std::string_view list,
                                                std::size_t max_hosts = 65536);

}  // namespace trainyard::run::slurm
