#include "api/storage/json.h"

#include <cstdint>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "access/project_identity.h"
#include "base/base64.h"
#include "base/time_format.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

using Json = nlohmann::ordered_json;

// GCS's timestamps have milliseconds ("2024-05-01T10:20:30.123Z"); gcloud warns about more.
std::string Timestamp(WallTime time) {
  std::string text = FormatTimestampMicros(time);  // "…:30.123456Z"
  text.erase(text.size() - 4, 3);
  return text;
}

std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// GCS reports a bucket's project by number; trainyard's projects are ids, whose stand-in number is
// ml v1 getConfig's (access::ProjectNumber). buckets.insert also takes a project by its number
// (`project=123456789012`), and a project named by a number keeps it.
std::string ProjectNumber(std::string_view project) {
  if (!project.empty() && project.find_first_not_of("0123456789") == std::string_view::npos) {
    return std::string(project);
  }
  return access::ProjectNumber(project);
}

Json ObjectResource(const store::ObjectInfo& object, std::string_view base_url) {
  const std::string generation = std::to_string(object.generation);
  const std::string path =
      fmt::format("b/{}/o/{}", PercentEncode(object.bucket), PercentEncode(object.name));
  const std::string updated = Timestamp(object.updated);
  Json json = {
      {"kind", "storage#object"},
      {"id", fmt::format("{}/{}/{}", object.bucket, object.name, generation)},
      {"selfLink", fmt::format("{}/storage/v1/{}", base_url, path)},
      {"mediaLink", fmt::format("{}/download/storage/v1/{}?generation={}&alt=media", base_url, path,
                                generation)},
      {"name", object.name},
      {"bucket", object.bucket},
      {"generation", generation},
      {"metageneration", std::to_string(object.metageneration)},
      {"contentType", object.content_type},
      {"storageClass", "STANDARD"},
      {"size", std::to_string(object.size)},
      {"md5Hash", object.md5_base64},
      {"crc32c", object.crc32c_base64},
      {"etag", object.md5_base64},
      {"timeCreated", updated},
      {"updated", updated},
      {"timeStorageClassUpdated", updated},
  };
  for (const store::ObjectHeaderField& field : store::kObjectHeaderFields) {
    if (!(object.headers.*field.field).empty()) {
      json[std::string(field.json_name)] = object.headers.*field.field;
    }
  }
  if (!object.metadata.empty()) {
    json["metadata"] = object.metadata;
  }
  return json;
}

// GCS's etag of a bucket: base64 of a protobuf holding its metageneration as field 1 ("CAE="
// for metageneration 1), so it changes with every metadata change.
std::string BucketEtag(std::int64_t metageneration) {
  std::string bytes = "\x08";
  auto value = static_cast<std::uint64_t>(metageneration);
  do {
    const auto low = static_cast<unsigned char>(value & 0x7F);
    value >>= 7;
    bytes.push_back(static_cast<char>(value != 0 ? (low | 0x80) : low));
  } while (value != 0);
  return Base64Encode(bytes, Base64Alphabet::kStandard);
}

Json BucketResource(const store::BucketInfo& bucket, std::string_view base_url) {
  Json json = {
      {"kind", "storage#bucket"},
      {"id", bucket.name},
      {"selfLink", fmt::format("{}/storage/v1/b/{}", base_url, PercentEncode(bucket.name))},
      {"projectNumber", ProjectNumber(bucket.project)},
      {"name", bucket.name},
      {"timeCreated", Timestamp(bucket.create_time)},
      {"updated", Timestamp(bucket.updated)},
      {"metageneration", std::to_string(bucket.metageneration)},
      {"location", "US"},
      {"locationType", "multi-region"},
      {"storageClass", "STANDARD"},
      {"etag", BucketEtag(bucket.metageneration)},
  };
  if (!bucket.labels.empty()) {
    json["labels"] = bucket.labels;
  }
  for (const auto& [name, text] : bucket.settings) {
    json[name] = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  }
  return json;
}

struct ErrorShape {
  int http_status;
  std::string_view reason;
};

ErrorShape ShapeFor(Code code) {
  switch (code) {
    case Code::kInvalidArgument:
      return {400, "invalid"};
    case Code::kNotFound:
      return {404, "notFound"};
    case Code::kAlreadyExists:
    case Code::kFailedPrecondition:
    case Code::kAborted:
      return {409, "conflict"};
    case Code::kOutOfRange:
      return {416, "requestedRangeNotSatisfiable"};
    case Code::kUnimplemented:
      return {501, "notImplemented"};
    case Code::kUnauthenticated:
      return {401, "required"};
    case Code::kPermissionDenied:
      return {403, "forbidden"};
    case Code::kResourceExhausted:  // a full disk: retry later, as GCS's 429s say
      return {429, "rateLimitExceeded"};
    case Code::kUnavailable:
    case Code::kInternal:
      return {HttpStatusFor(code), "backendError"};
    default:
      return {HttpStatusFor(code), "invalid"};
  }
}

}  // namespace

std::string ObjectJson(const store::ObjectInfo& object, std::string_view base_url) {
  return Dump(ObjectResource(object, base_url));
}

std::string ObjectListJson(const store::ObjectListing& listing, std::string_view base_url) {
  Json json = {{"kind", "storage#objects"}};
  if (!listing.next_page_token.empty()) {
    json["nextPageToken"] = listing.next_page_token;
  }
  if (!listing.prefixes.empty()) {
    json["prefixes"] = listing.prefixes;
  }
  if (!listing.objects.empty()) {
    Json items = Json::array();
    for (const store::ObjectInfo& object : listing.objects) {
      items.push_back(ObjectResource(object, base_url));
    }
    json["items"] = std::move(items);
  }
  return Dump(json);
}

std::string BucketJson(const store::BucketInfo& bucket, std::string_view base_url) {
  return Dump(BucketResource(bucket, base_url));
}

std::string BucketListJson(const std::vector<store::BucketInfo>& buckets,
                           std::string_view base_url) {
  Json json = {{"kind", "storage#buckets"}};
  if (!buckets.empty()) {
    Json items = Json::array();
    for (const store::BucketInfo& bucket : buckets) {
      items.push_back(BucketResource(bucket, base_url));
    }
    json["items"] = std::move(items);
  }
  return Dump(json);
}

HttpResponse StorageErrorResponse(const Status& status) {
  if (store::IsConditionNotMet(status)) {
    return PreconditionFailedResponse();
  }
  const ErrorShape shape = ShapeFor(status.code());
  // GCS words a bad parameter by itself ("Invalid bucket name: 'x'"), without "Field: …".
  const std::string& message =
      status.violations().empty() ? status.message() : status.violations()[0].description;
  Json error = {{"message", message}, {"domain", "global"}, {"reason", shape.reason}};
  if (!status.violations().empty()) {
    error["locationType"] = "parameter";
    error["location"] = status.violations()[0].field;
  }
  const Json body = {{"error",
                      {{"code", shape.http_status},
                       {"message", message},
                       {"errors", Json::array({std::move(error)})}}}};
  return JsonResponse(Dump(body), shape.http_status);
}

HttpResponse PreconditionFailedResponse() {
  constexpr std::string_view kMessage =
      "At least one of the pre-conditions you specified did not hold.";
  const Json error = {{"message", kMessage},
                      {"domain", "global"},
                      {"reason", "conditionNotMet"},
                      {"locationType", "header"},
                      {"location", "If-Match"}};
  const Json body = {
      {"error", {{"code", 412}, {"message", kMessage}, {"errors", Json::array({error})}}}};
  return JsonResponse(Dump(body), 412);
}

std::string BaseUrl(const HttpRequest& request) {
  const std::string_view host = request.Header("host");
  return fmt::format("http://{}", host.empty() ? "127.0.0.1" : host);
}

std::string PercentEncode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
        (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

}  // namespace trainyard::server
