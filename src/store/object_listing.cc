// `FileBucketStore::ListObjects`: a page of a bucket's objects and, with a delimiter, prefixes,
// from the ordered walk of its directory (object_walk.cc) with each object's metadata.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "store/file_bucket_store.h"
#include "store/object_glob.h"

namespace trainyard::store::internal {
namespace {

constexpr int kMaxListResults = 1000;

}  // namespace

Result<ObjectListing> FileBucketStore::ListObjects(std::string_view bucket,
                                                   const ListObjectsRequest& request) {
  TY_RETURN_IF_ERROR(GetBucket(bucket).status());
  std::string after;
  if (!request.page_token.empty()) {
    std::optional<std::string> decoded = Base64Decode(request.page_token);
    if (!decoded.has_value() || decoded->empty()) {
      return Status::InvalidArgument(
          {{"pageToken", "Not a page token of this listing; pass nextPageToken as given."}});
    }
    after = *std::move(decoded);
  }
  std::optional<ObjectGlob> glob;
  if (!request.match_glob.empty()) {
    Result<ObjectGlob> compiled = ObjectGlob::Compile(request.match_glob);
    if (!compiled.ok()) {
      return compiled.status();
    }
    glob = *std::move(compiled);
  }
  const int max = std::clamp(request.max_results, 1, kMaxListResults);
  Result<os::UniqueFd> bucket_fd = BucketFd(bucket);
  if (!bucket_fd.ok()) {
    return ObjectListing{};  // no directory: no objects
  }
  const WalkFilter filter{.prefix = request.prefix,
                          .delimiter = request.delimiter,
                          .start_offset = request.start_offset,
                          .end_offset = request.end_offset,
                          .glob = glob.has_value() ? &*glob : nullptr};
  TreePage page = WalkObjects(bucket_fd->get(), filter, after, max);
  ObjectListing listing;
  if (page.more && !page.entries.empty()) {
    listing.next_page_token = Base64Encode(page.entries.back().name);
  }
  for (TreeEntry& entry : page.entries) {
    if (entry.is_prefix) {
      listing.prefixes.push_back(std::move(entry.name));
      continue;
    }
    Result<ObjectInfo> info = Describe(bucket_fd->get(), bucket, entry.name, entry.stat);
    if (info.ok()) {
      listing.objects.push_back(*std::move(info));
    } else if (info.status().code() != Code::kNotFound) {
      return info.status();  // a file removed since the walk is simply not listed
    }
  }
  return listing;
}

}  // namespace trainyard::store::internal
