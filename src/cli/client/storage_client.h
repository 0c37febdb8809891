// Uploads local files through the storage v1 API of a trainyard server
// (docs/reference/ai-platform-training.md §11), as gcloud 528 uploads `--packages` files and the
// `--package-path` sdist (api_lib/storage/storage_api.py CopyFileToGCS on apitools'
// transfer.Upload):
//   * a file of at most 5 MiB goes in one multipart request (JSON metadata, then the bytes) to
//     POST upload/storage/v1/b/<bucket>/o?uploadType=multipart&name=<object>;
//   * a larger one in a resumable session: POST resumable/upload/…?uploadType=resumable answers
//     the session URL in `Location`, then PUTs of 100 MiB chunks (gcloud's
//     storage/upload_chunk_size) with `Content-Range`, answered 308 until the last;
//   * the object's contentType is guessed from the file name as Python's `mimetypes` does;
//   * the object size the server answers must be the file's.
// Errors carry gcloud's messages ("Could not upload file: [b] bucket does not exist.", with how
// to create the bucket). Not thread-safe (as `RestClient`); cheap to make.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/status.h"
#include "cli/client/rest_client.h"
#include "cli/commands/flag_values.h"

namespace trainyard::cli {

struct UploadOptions {
  std::uint64_t resumable_threshold = std::uint64_t{5} << 20;  // apitools: larger is resumable
  std::uint64_t chunk_size = std::uint64_t{100} << 20;         // bytes per resumable PUT
};

class StorageClient {
 public:
  explicit StorageClient(ServerUrl server, RestOptions rest = {}, UploadOptions upload = {});

  // Uploads the file at `local_path` as `destination` (replacing an object of that name).
  // NOT_FOUND when the bucket does not exist; INVALID_ARGUMENT when the file cannot be read;
  // the server's or the transport's errors otherwise.
  Status Upload(const std::filesystem::path& local_path, const ObjectRef& destination) const;

 private:
  Status UploadMultipart(const std::filesystem::path& local_path, std::uint64_t size,
                         const ObjectRef& destination) const;
  Status UploadResumable(const std::filesystem::path& local_path, std::uint64_t size,
                         const ObjectRef& destination) const;

  ServerUrl server_;
  RestOptions rest_;
  UploadOptions upload_;
};

// The content type Python's `mimetypes.guess_type` gives `file_name` (gcloud's _GetMimetype):
// application/x-tar for tar archives, compressed or not ("x.tar.gz", "x.tgz"), application/zip
// for ".zip", else application/octet-stream (wheels included). Pure.
std::string GuessContentType(std::string_view file_name);

}  // namespace trainyard::cli
