#include "cli/client/storage_client.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/client/http_exchange.h"
#include "cli/client/rpc_status.h"

namespace trainyard::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kHttpOk = 200;
constexpr int kHttpCreated = 201;
constexpr int kHttpResumeIncomplete = 308;
constexpr int kHttpNotFound = 404;

std::string UploadQuery(const ObjectRef& destination, std::string_view upload_type) {
  return fmt::format("storage/v1/b/{}/o?uploadType={}&alt=json&name={}",
                     PercentEncode(destination.bucket), upload_type,
                     PercentEncode(destination.name));
}

// apitools sends the object resource gcloud built: only its size (int64 as a JSON string).
std::string ObjectMetadata(std::uint64_t size) {
  return nlohmann::json{{"size", std::to_string(size)}}.dump();
}

// storage_api.CopyFileToGCS's messages for a refused upload. A 404 on the request that starts
// the upload means the bucket does not exist.
Status UploadRefused(const HttpReply& reply, const fs::path& local_path,
                     const ObjectRef& destination, const ServerUrl& server, bool starting) {
  if (starting && reply.status == kHttpNotFound) {
    std::string storage_url = server.text;
    if (!storage_url.ends_with('/')) {
      storage_url += '/';
    }
    return Status::NotFound(fmt::format(
        "Could not upload file: [{0}] bucket does not exist. Create it with `gcloud storage "
        "buckets create gs://{0}`, with gcloud's storage API pointed at this trainyard server "
        "(`gcloud config set api_endpoint_overrides/storage {1}storage/v1/`), then submit "
        "again.",
        destination.bucket, storage_url));
  }
  const Status status = StatusFromHttpError(reply.status, reply.body);
  return Status::FromCode(
      status.code(),
      fmt::format("{} Could not upload file [{}] to [{}/{}]: {}", reply.status, local_path.string(),
                  destination.bucket, destination.name, status.message()));
}

// The size in the object resource the server answered must be the file's.
Status CheckUploadedSize(const HttpReply& reply, const fs::path& local_path, std::uint64_t size) {
  const auto object = nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  const bool matches = object.is_object() && object.contains("size") &&
                       object["size"].is_string() &&
                       object["size"].get<std::string>() == std::to_string(size);
  if (matches) {
    return {};
  }
  return Status::Internal(fmt::format(
      "Cloud storage upload failure. Uploaded file does not match local file: {}. Please retry.",
      local_path.string()));
}

// Reads `length` bytes at `offset` of `path`.
Result<std::string> ReadRange(const fs::path& path, std::uint64_t offset, std::uint64_t length) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(length, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(bytes.data(), static_cast<std::streamsize>(length));
  if (!in || static_cast<std::uint64_t>(in.gcount()) != length) {
    return Status::InvalidArgument(fmt::format("[{}] not found or not accessible", path.string()));
  }
  return bytes;
}

// A boundary as Python's email package makes one, not found in `data`.
std::string Boundary(std::string_view data) {
  std::random_device seed;
  std::mt19937_64 random(seed());
  std::uniform_int_distribution<std::uint64_t> digits(0, 9'999'999'999'999'999'999ULL);
  while (true) {
    std::string boundary = fmt::format("==============={:019}==", digits(random));
    if (data.find(boundary) == std::string_view::npos) {
      return boundary;
    }
  }
}

// "/upload/…?upload_id=…" of an absolute `Location`, without its leading '/' (targets are
// relative to the server's base path).
std::string SessionTarget(std::string_view location) {
  const std::size_t scheme = location.find("://");
  if (scheme != std::string_view::npos) {
    const std::size_t path = location.find('/', scheme + 3);
    location = path == std::string_view::npos ? std::string_view() : location.substr(path);
  }
  while (location.starts_with('/')) {
    location.remove_prefix(1);
  }
  return std::string(location);
}

// The next offset a 308 announces: "Range: bytes=0-B" means B + 1 bytes were received.
std::uint64_t ReceivedBytes(std::string_view range) {
  const std::size_t dash = range.rfind('-');
  if (!range.starts_with("bytes=") || dash == std::string_view::npos) {
    return 0;
  }
  const std::string_view last = range.substr(dash + 1);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(last.data(), last.data() + last.size(), value);
  return error == std::errc() && end == last.data() + last.size() ? value + 1 : 0;
}

}  // namespace

StorageClient::StorageClient(ServerUrl server, RestOptions rest, UploadOptions upload)
    : server_(std::move(server)), rest_(std::move(rest)), upload_(upload) {}

Status StorageClient::Upload(const fs::path& local_path, const ObjectRef& destination) const {
  std::error_code ec;
  const std::uint64_t size = fs::file_size(local_path, ec);
  if (ec) {  // storage_api._GetFileSize
    return Status::InvalidArgument(
        fmt::format("[{}] not found or not accessible", local_path.string()));
  }
  return size > upload_.resumable_threshold ? UploadResumable(local_path, size, destination)
                                            : UploadMultipart(local_path, size, destination);
}

Status StorageClient::UploadMultipart(const fs::path& local_path, std::uint64_t size,
                                      const ObjectRef& destination) const {
  Result<std::string> bytes = ReadRange(local_path, 0, size);
  if (!bytes.ok()) {
    return bytes.status();
  }
  const std::string boundary = Boundary(*bytes);
  std::string body = fmt::format(
      "--{0}\r\nContent-Type: application/json\r\nMIME-Version: 1.0\r\n\r\n{1}\r\n--{0}\r\n"
      "Content-Type: {2}\r\nMIME-Version: 1.0\r\nContent-Transfer-Encoding: binary\r\n\r\n",
      boundary, ObjectMetadata(size), GuessContentType(local_path.filename().string()));
  body += *bytes;
  body += fmt::format("\r\n--{}--\r\n", boundary);
  Result<HttpReply> reply = SendHttp(
      server_, rest_,
      {.method = "POST",
       .target = "upload/" + UploadQuery(destination, "multipart"),
       .headers = {{"Content-Type", fmt::format("multipart/related; boundary='{}'", boundary)}},
       .body = std::move(body)});
  if (!reply.ok()) {
    return reply.status();
  }
  if (reply->status != kHttpOk) {
    return UploadRefused(*reply, local_path, destination, server_, true);
  }
  return CheckUploadedSize(*reply, local_path, size);
}

Status StorageClient::UploadResumable(const fs::path& local_path, std::uint64_t size,
                                      const ObjectRef& destination) const {
  Result<HttpReply> started = SendHttp(
      server_, rest_,
      {.method = "POST",
       .target = "resumable/upload/" + UploadQuery(destination, "resumable"),
       .headers = {{"Content-Type", "application/json"},
                   {"X-Upload-Content-Type", GuessContentType(local_path.filename().string())},
                   {"X-Upload-Content-Length", std::to_string(size)}},
       .body = ObjectMetadata(size)});
  if (!started.ok()) {
    return started.status();
  }
  if (started->status != kHttpOk) {
    return UploadRefused(*started, local_path, destination, server_, true);
  }
  const std::string session = SessionTarget(started->Header("Location"));
  if (session.empty()) {
    return Status::Internal("The server started a resumable upload without a session URL.");
  }
  std::uint64_t offset = 0;
  while (true) {
    const std::uint64_t length = std::min(upload_.chunk_size, size - offset);
    Result<std::string> chunk = ReadRange(local_path, offset, length);
    if (!chunk.ok()) {
      return chunk.status();
    }
    const std::string range =
        length == 0 ? fmt::format("bytes */{}", size)
                    : fmt::format("bytes {}-{}/{}", offset, offset + length - 1, size);
    Result<HttpReply> reply = SendHttp(server_, rest_,
                                       {.method = "PUT",
                                        .target = session,
                                        .headers = {{"Content-Range", range}},
                                        .body = *std::move(chunk)});
    if (!reply.ok()) {
      return reply.status();
    }
    if (reply->status == kHttpOk || reply->status == kHttpCreated) {
      return CheckUploadedSize(*reply, local_path, size);
    }
    if (reply->status != kHttpResumeIncomplete) {
      return UploadRefused(*reply, local_path, destination, server_, false);
    }
    const std::uint64_t received = ReceivedBytes(reply->Header("Range"));
    if (received <= offset || received > size) {  // no progress: the session is broken
      return Status::Internal(fmt::format(
          "Could not upload file [{}] to [{}/{}]: the server acknowledged {} of {} bytes.",
          local_path.string(), destination.bucket, destination.name, received, size));
    }
    offset = received;
  }
}

std::string GuessContentType(std::string_view file_name) {
  std::string name(file_name);
  std::ranges::transform(name, name.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // mimetypes' suffix_map and encodings_map, then types_map's ".tar".
  for (const std::string_view suffix : {".tgz", ".taz", ".tz", ".tbz2", ".txz"}) {
    if (name.ends_with(suffix)) {
      return "application/x-tar";
    }
  }
  for (const std::string_view encoding : {".gz", ".z", ".bz2", ".xz", ".br"}) {
    if (name.ends_with(encoding)) {
      name.resize(name.size() - encoding.size());
      break;
    }
  }
  if (name.ends_with(".tar")) {
    return "application/x-tar";
  }
  if (name.ends_with(".zip")) {
    return "application/zip";
  }
  return "application/octet-stream";
}

}  // namespace trainyard::cli
