// How the server picks the id of a job whose API does not name it by its id: a TFJob is named by
// its metadata.name (kube::JobIdSchemeFor), a Vertex job by a number the server gives
// (vertex::JobIdScheme). The scheme is data: the candidates to try in order, each a pure function
// of the attempt and, when the scheme asks for one, a random draw; the job controller tries them
// until one is free (control::JobController::SubmitWithId).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace trainyard::model {

struct JobIdScheme {
  // The id to try at `attempt` (0 first), given `draw`: 64 random bits when `random`, else 0.
  std::function<std::string(int attempt, std::uint64_t draw)> candidate;
  int max_attempts = 1;  // candidates tried before giving up
  bool random = false;   // each attempt draws from the kernel's random source
};

}  // namespace trainyard::model
