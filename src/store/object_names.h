// The name rules of buckets and objects, internal to store/ (the contract is in bucket_store.h).
// They keep every name inside its bucket's directory: they run before any IO. Pure and
// thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"

namespace trainyard::store::internal {

// What a name is checked for. Some names GCS allows cannot be stored as plain files ("a/",
// "a//b"): writing one is INVALID_ARGUMENT, reading one is NOT_FOUND (no such object can exist),
// so a client probing for a "folder" object gets the answer GCS would give.
enum class NameUse { kRead, kWrite };

// INVALID_ARGUMENT on field "bucket" unless `name` is 3-63 characters of [a-z0-9_.-] starting and
// ending with a letter or digit.
Status CheckBucketName(std::string_view name);

// INVALID_ARGUMENT on field "object" for an empty or over-long name, invalid UTF-8, NUL, CR or LF,
// a leading "/", a "." or ".." segment, or a segment longer than a file name may be; for the
// unrepresentable names above, as `use` says. `bucket` only words the NOT_FOUND message.
Status CheckObjectName(std::string_view bucket, std::string_view name, NameUse use);

// The NOT_FOUND status GCS answers for a missing object ("No such object: b/n").
Status NoSuchObject(std::string_view bucket, std::string_view name);

}  // namespace trainyard::store::internal
