#include "server/json_body.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/json_dialects.h"
#include "base/json_reader.h"
#include "base/text.h"

namespace trainyard::server {
namespace {

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

Status CheckJsonBody(const HttpRequest& request) {
  const std::string_view type = request.content_type;
  if (!type.empty() &&
      !IEquals(TrimWhitespace(type.substr(0, type.find(';'))), "application/json")) {
    return Status::InvalidArgument(fmt::format(
        "Unsupported Content-Type \"{}\": the request body must be application/json.", type));
  }
  return {};
}

Status CheckEmptyMessage(const HttpRequest& request, std::string_view message) {
  TY_RETURN_IF_ERROR(CheckJsonBody(request));
  if (TrimWhitespace(request.body).empty()) {
    return {};
  }
  const nlohmann::json body =
      nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return Status::InvalidArgument("Invalid JSON payload received: the body is not valid JSON.");
  }
  if (!body.is_object()) {
    return Status::InvalidArgument(
        fmt::format("Invalid JSON payload received: expected a JSON object ({}).", message));
  }
  std::vector<FieldViolation> unknown;
  // Google's words (ml v1's dialect), each violation on the member it is about.
  JsonReader reader(kMlV1JsonDialect, [&unknown](JsonError error) {
    unknown.push_back({std::move(error.locus), std::move(error.message)});
  });
  JsonObject(reader, body, "").Finish();
  return unknown.empty() ? Status() : Status::InvalidArgument(std::move(unknown));
}

Result<int> ParsePageSize(const std::string* text) {
  if (text == nullptr || text->empty()) {
    return 0;
  }
  int value = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end) {
    return Status::InvalidArgument(std::vector<FieldViolation>{
        {"pageSize", fmt::format("\"{}\" is not a 32-bit integer.", text->substr(0, 100))}});
  }
  return value;
}

}  // namespace trainyard::server
