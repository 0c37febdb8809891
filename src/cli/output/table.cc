#include "cli/output/table.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace trainyard::cli {
namespace {

std::size_t Width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

void AppendRow(const std::vector<std::string>& cells, const std::vector<std::size_t>& widths,
               std::string& out) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    line += cells[i];
    if (i + 1 < cells.size()) {
      line.append(widths[i] - Width(cells[i]) + 2, ' ');
    }
  }
  while (!line.empty() && line.back() == ' ') {
    line.pop_back();
  }
  out += line;
  out += '\n';
}

}  // namespace

std::string FormatTable(const std::vector<std::string>& headers,
                        const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths(headers.size(), 0);
  for (std::size_t i = 0; i < headers.size(); ++i) {
    widths[i] = Width(headers[i]);
    for (const auto& row : rows) {
      widths[i] = std::max(widths[i], Width(row.at(i)));
    }
  }
  std::string out;
  AppendRow(headers, widths, out);
  for (const auto& row : rows) {
    AppendRow(row, widths, out);
  }
  return out;
}

}  // namespace trainyard::cli
