// Aligned text tables in the style of gcloud's list output: upper-case headers, columns padded
// to their widest cell and separated by two spaces, no trailing blanks. Pure.
#pragma once

#include <string>
#include <vector>

namespace trainyard::cli {

// Every row has as many cells as `headers`. Widths count UTF-8 code points.
std::string FormatTable(const std::vector<std::string>& headers,
                        const std::vector<std::vector<std::string>>& rows);

}  // namespace trainyard::cli
