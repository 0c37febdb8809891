// Internal to validate/: syntax of the request's names and URIs.
#pragma once

#include <cstddef>
#include <string_view>

namespace trainyard::validate {

// Job ids: ^[A-Za-z][A-Za-z0-9_]{0,127}$ (docs/reference/ai-platform-training.md §2.8 #1, overview
// seed).
inline constexpr std::size_t kMaxJobIdLength = 128;
bool IsJobId(std::string_view text);

// gs://bucket/object, with a valid bucket name and a non-empty object name.
bool IsGcsObjectUri(std::string_view text);
// gs://bucket or gs://bucket/path.
bool IsGcsDirectoryUri(std::string_view text);
// An absolute local path: trainyard runs next to its files, so "/data/pkg.tar.gz" is accepted
// where Google wants gs:// (an extension for local use).
bool IsAbsoluteLocalPath(std::string_view text);

// A dotted Python module name, "trainer.task".
bool IsPythonModule(std::string_view text);

// GCP labels: keys [a-z][a-z0-9_-]{0,62}, values [a-z0-9_-]{0,63}.
inline constexpr std::size_t kMaxLabelLength = 63;
bool IsLabelKey(std::string_view text);
bool IsLabelValue(std::string_view text);

}  // namespace trainyard::validate
