#include "cli/output/error_output.h"

namespace trainyard::cli {

void PrintError(std::ostream& err, std::string_view command, std::string_view message) {
  err << "ERROR: (" << command << ") " << message << "\n";
}

void PrintApiError(std::ostream& err, std::string_view command, const Status& status) {
  PrintError(err, command, status.ToString());
}

void PrintCreateError(std::ostream& err, std::string_view command, std::string_view project,
                      const Status& status) {
  if (status.code() == Code::kAlreadyExists || status.code() == Code::kAborted) {
    err << "ERROR: (" << command << ") Resource in projects [" << project
        << "] is the subject of a conflict: " << status.message() << "\n";
    return;
  }
  PrintApiError(err, command, status);
}

}  // namespace trainyard::cli
