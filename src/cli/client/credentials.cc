// RestOptionsFor (commands.h): the bearer token an API verb sends.
#include <string>

#include "base/text.h"
#include "cli/commands/commands.h"
#include "os/file.h"

namespace trainyard::cli {

Result<RestOptions> RestOptionsFor(const ApiTarget& target) {
  RestOptions options{.ca_file = target.ca_file};
  if (target.token_file) {
    std::optional<std::string> text = os::ReadFileText(*target.token_file);
    if (!text) {
      return Status::FailedPrecondition("cannot read the token file " + *target.token_file);
    }
    options.bearer_token = std::string(TrimWhitespace(*text));
    if (options.bearer_token.empty()) {
      return Status::FailedPrecondition("the token file " + *target.token_file + " is empty");
    }
    return options;
  }
  if (target.token) {
    options.bearer_token = std::string(TrimWhitespace(*target.token));
  }
  return options;
}

}  // namespace trainyard::cli
