#include "os/environment.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace trainyard::os {
namespace {

namespace fs = std::filesystem;

enum class FileKind { kMissing, kDirectory, kNotExecutable, kExecutable };

FileKind Inspect(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return FileKind::kMissing;
  }
  if (S_ISDIR(st.st_mode)) {
    return FileKind::kDirectory;
  }
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) {
    return FileKind::kNotExecutable;
  }
  return FileKind::kExecutable;
}

// `path` made absolute against `working_dir` (itself against this process's directory), which is
// where the child resolves it after its chdir.
std::string AgainstWorkingDir(const std::string& path, const std::string& working_dir) {
  fs::path p(path);
  if (p.is_relative() && !working_dir.empty()) {
    p = fs::path(working_dir) / p;
  }
  std::error_code ignored;
  fs::path absolute = fs::absolute(p, ignored);
  return absolute.empty() ? p.string() : absolute.string();
}

Status CannotRun(const std::string& program, std::string_view why, int code, int* error) {
  if (error != nullptr) {
    *error = code;
  }
  return Status::FailedPrecondition(fmt::format("Cannot run {}: {}", program, why));
}

}  // namespace

Environment CurrentEnvironment() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      continue;
    }
    env.emplace_back(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return MergeEnvironment({}, env);  // drops duplicates, keeping the last value
}

Environment MergeEnvironment(Environment base, const Environment& overrides) {
  for (const auto& [name, value] : overrides) {
    auto it = std::find_if(base.begin(), base.end(),
                           [&name = name](const auto& entry) { return entry.first == name; });
    if (it != base.end()) {
      it->second = value;
    } else {
      base.emplace_back(name, value);
    }
  }
  return base;
}

std::string_view EnvValue(const Environment& env, std::string_view name,
                          std::string_view fallback) {
  for (const auto& [key, value] : env) {
    if (key == name) {
      return value;
    }
  }
  return fallback;
}

Result<std::string> FindProgram(const std::string& program, std::string_view path_var,
                                const std::string& working_dir, int* error) {
  if (program.empty()) {
    if (error != nullptr) {
      *error = ENOENT;
    }
    return Status::FailedPrecondition("Cannot run an empty program name");
  }
  if (program.find('/') != std::string::npos) {
    std::string path = AgainstWorkingDir(program, working_dir);
    switch (Inspect(path)) {
      case FileKind::kExecutable:
        return path;
      case FileKind::kMissing:
        return CannotRun(program, "no such file", ENOENT, error);
      case FileKind::kDirectory:
        return CannotRun(program, "is a directory", EACCES, error);
      case FileKind::kNotExecutable:
        return CannotRun(program, "not executable", EACCES, error);
    }
  }
  std::string not_executable;  // the first match that cannot be run, as execvp reports EACCES
  size_t start = 0;
  while (start <= path_var.size()) {
    size_t end = path_var.find(':', start);
    if (end == std::string_view::npos) {
      end = path_var.size();
    }
    std::string_view dir = path_var.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) {
      continue;
    }
    std::string candidate = AgainstWorkingDir(std::string(dir) + "/" + program, working_dir);
    FileKind kind = Inspect(candidate);
    if (kind == FileKind::kExecutable) {
      return candidate;
    }
    if (kind == FileKind::kNotExecutable && not_executable.empty()) {
      not_executable = candidate;
    }
  }
  if (!not_executable.empty()) {
    return CannotRun(program, not_executable + " is not executable", EACCES, error);
  }
  return CannotRun(program, "not found on PATH", ENOENT, error);
}

std::string AbsolutePath(const std::string& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.string();
}

}  // namespace trainyard::os
