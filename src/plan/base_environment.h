// The part of the server's own environment that a job's processes get (issue #17): trainers,
// pip, and container clients start from it (plan/replicas.h then sets TF_CONFIG, PYTHONPATH and
// the rest over it). Only the variables named in `kPassedVariables` and the operator's
// `serve --pass-env` names pass, so no secret of the server's (a token in $TRAINYARD_TOKEN,
// cloud credentials, a database password) reaches job code. With a `serve --run-as` user, HOME,
// USER and LOGNAME are that user's. Pure.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::plan {

using EnvironmentPairs = std::vector<std::pair<std::string, std::string>>;

// What a trainer needs from its machine and nothing about the server: the search path, the
// locale and time zone, the temporary directory, proxies, where CUDA is, thread counts. A name
// ending in '*' passes every variable with that prefix.
inline constexpr std::array<std::string_view, 22> kPassedVariables = {"PATH",
                                                                      "HOME",
                                                                      "USER",
                                                                      "LOGNAME",
                                                                      "LANG",
                                                                      "LANGUAGE",
                                                                      "LC_*",
                                                                      "TZ",
                                                                      "TMPDIR",
                                                                      "http_proxy",
                                                                      "https_proxy",
                                                                      "no_proxy",
                                                                      "HTTP_PROXY",
                                                                      "HTTPS_PROXY",
                                                                      "NO_PROXY",
                                                                      "LD_LIBRARY_PATH",
                                                                      "CUDA_HOME",
                                                                      "CUDA_PATH",
                                                                      "OMP_NUM_THREADS",
                                                                      "PYTHONDONTWRITEBYTECODE",
                                                                      "PYTHONUNBUFFERED",
                                                                      "PYTHONIOENCODING"};

// Whether `name` matches `pattern` (a name, or a prefix followed by '*').
bool MatchesVariable(std::string_view pattern, std::string_view name);

// INVALID_ARGUMENT (on "pass-env") unless each of `patterns` is a variable name
// ([A-Za-z_][A-Za-z0-9_]*), optionally followed by one '*'.
Status CheckPassedPatterns(const std::vector<std::string>& patterns);

// The variables of `server` that match `kPassedVariables` or `extra`, in `server`'s order; with
// a non-empty `user_name`, HOME is `user_home` and USER and LOGNAME are `user_name` (set even when
// the server has none of them).
EnvironmentPairs JobBaseEnvironment(const EnvironmentPairs& server,
                                    const std::vector<std::string>& extra,
                                    std::string_view user_name = {},
                                    std::string_view user_home = {});

}  // namespace trainyard::plan
