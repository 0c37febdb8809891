#include "run/local/package_cache.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <stop_token>
#include <string>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/sha256.h"
#include "os/no_follow.h"
#include "run/local/package_entry.h"
#include "run/local/package_files.h"
#include "run/local/pip_stager.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;

// Bumped when what an entry holds changes meaning, so old entries are not used.
// 2: entries are sealed (the server's, read-only: package_entry.h); a 1 entry was installed
// by the job user in place and may have been changed since.
constexpr std::string_view kCacheFormat = "trainyard-package-cache-2";
constexpr std::string_view kManifest = ".trainyard-entry";
constexpr std::string_view kTemporary = ".tmp-";
constexpr std::size_t kKeyLength = 64;  // hex SHA-256
// How often a stoppable wait for a key's lock tries it again.
constexpr std::chrono::milliseconds kLockRetry{50};

// A field of a key: its length first, so ("ab", "c") and ("a", "bc") differ.
void AddField(Sha256& digest, std::string_view bytes) {
  digest.Add(std::to_string(bytes.size()) + ":");
  digest.Add(bytes);
}

Result<std::string> FileDigest(const std::string& path) {
  Sha256 digest;
  std::ifstream in(path, std::ios::binary);
  if (!digest.ok() || !in || !digest.AddStream(in)) {
    return Status::FailedPrecondition(fmt::format("Cannot read package {}.", path));
  }
  return digest.Hex();
}

// What identifies the interpreter: its path as given, where it resolves to (PATH, then links),
// and that file's size and mtime.
std::string InterpreterIdentity(const std::string& python) {
  std::string path = python;
  if (python.find('/') == std::string::npos) {
    const char* env_path = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe): read only
    std::string_view dirs = env_path == nullptr ? "" : env_path;
    while (!dirs.empty()) {
      const std::size_t colon = dirs.find(':');
      const std::string candidate = std::string(dirs.substr(0, colon)) + "/" + python;
      if (access(candidate.c_str(), X_OK) == 0) {
        path = candidate;
        break;
      }
      dirs = colon == std::string_view::npos ? "" : dirs.substr(colon + 1);
    }
  }
  std::error_code error;
  const fs::path real = fs::canonical(path, error);
  if (error) {
    return python;
  }
  const auto size = fs::file_size(real, error);
  const auto mtime = fs::last_write_time(real, error).time_since_epoch().count();
  return fmt::format("{}\n{}\n{}\n{}", python, real.string(), size, mtime);
}

bool IsKey(std::string_view name) {
  return name.size() == kKeyLength && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::uint64_t TreeBytes(const fs::path& dir) {
  std::uint64_t bytes = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(dir, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    std::error_code size_error;
    if (it->is_regular_file(size_error)) {
      bytes += it->file_size(size_error);
    }
  }
  return bytes;
}

// An exclusive `flock` on a key's lock file, held while it lives.
class KeyLock {
 public:
  // Blocks until held (or `stop` is requested), unless `wait` is false.
  KeyLock(const fs::path& path, bool wait, const std::stop_token& stop = {})
      : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) {
    if (fd_ < 0) {
      return;
    }
    const bool block = wait && !stop.stop_possible();
    int locked = 0;
    do {
      locked = flock(fd_, LOCK_EX | (block ? 0 : LOCK_NB));
    } while (locked != 0 && errno == EINTR);
    if (locked != 0 && wait && !block) {
      // Another install of the key runs: try again until it ends or we are stopped.
      std::mutex mu;
      std::condition_variable_any cv;
      std::unique_lock hold(mu);
      while (locked != 0 && (errno == EWOULDBLOCK || errno == EINTR) &&
             !cv.wait_for(hold, stop, kLockRetry, [] { return false; }) && !stop.stop_requested()) {
        locked = flock(fd_, LOCK_EX | LOCK_NB);
      }
    }
    held_ = locked == 0;
  }
  ~KeyLock() {
    if (fd_ >= 0) {
      close(fd_);
    }
  }
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;
  bool held() const { return held_; }

 private:
  int fd_;
  bool held_ = false;
};

// Unique across processes too: a restarted server can have the pid a killed one had (pid 1 in a
// container), and that one's orphaned installer must never write into our temporary.
std::string UniqueSuffix() {
  static std::atomic<unsigned> counter{0};
  static const unsigned nonce = std::random_device()();
  return fmt::format("{}{}-{:08x}-{}", kTemporary, getpid(), nonce, counter.fetch_add(1));
}

// Renames `dir` out of the way, then removes it: never half there under its own name.
void RemoveEntry(const fs::path& dir) {
  std::error_code error;
  const fs::path doomed = dir.string() + UniqueSuffix();
  fs::rename(dir, doomed, error);
  fs::remove_all(error ? dir : doomed, error);
}

void AppendLog(const std::string& path, std::string_view line) {
  std::ofstream out(path, std::ios::app);
  out << line << '\n';
}

}  // namespace

PackageCache::PackageCache(Stager& installer, PackageCacheOptions options)
    : installer_(installer), options_(std::move(options)) {
  std::error_code error;
  fs::create_directories(fs::path(options_.dir) / "leases", error);
  fs::permissions(fs::path(options_.dir) / "leases", fs::perms::owner_all, error);  // the server's
  RemoveTemporaries();
}

Result<std::string> PackageCache::KeyOf(const std::vector<std::string>& files,
                                        const std::string& python) const {
  Sha256 key;
  if (!key.ok()) {
    return Status::Internal("Cannot initialise SHA-256.");
  }
  AddField(key, kCacheFormat);
  AddField(key, options_.installer_identity);
  AddField(key, InterpreterIdentity(python));
  for (const std::string& file : files) {
    Result<std::string> digest = FileDigest(file);
    if (!digest.ok()) {
      return digest.status();
    }
    AddField(key, *digest);
  }
  return key.Hex();
}

Status PackageCache::Stage(const StageRequest& request) {
  // Read once: the key and the install are of the same bytes, whatever the job writes meanwhile.
  Result<PackageCopies> copies = PackageCopies::Make(request, options_.package_dirs);
  if (!copies.ok()) {
    return copies.status();
  }
  const std::vector<std::string>& files = copies->files();
  if (files.empty()) {
    return {};
  }
  Result<std::string> key = KeyOf(files, request.python);
  if (!key.ok()) {
    return key.status();
  }
  // A killed server's install of this job ends before anything of its key is touched.
  TY_RETURN_IF_ERROR(StopRecordedInstall(request.pid_file, options_.stop_grace));
  const fs::path dir(options_.dir);
  const fs::path entry = dir / *key;
  bool installed = false;
  {
    const KeyLock lock(dir / (*key + ".lock"), true, request.stop);
    if (!lock.held() && request.stop.stop_requested()) {
      return Status::FromCode(Code::kCancelled, "Installing packages was cancelled.");
    }
    if (!lock.held()) {
      return Status::Internal(fmt::format("Cannot lock the package cache entry {}: {}",
                                          entry.string(),
                                          std::strerror(errno)));  // NOLINT(concurrency-mt-unsafe)
    }
    std::error_code error;
    if (fs::exists(entry, error) && !fs::exists(entry / kManifest, error)) {
      RemoveEntry(entry);  // not whole: never used
    }
    if (!fs::exists(entry / kManifest, error)) {
      TY_RETURN_IF_ERROR(Install(request, files, *key));
      installed = true;
    }
    // A use: the manifest's mtime orders eviction. The lease and the link are made under the
    // lock, so an eviction (which takes it) sees both.
    fs::last_write_time(entry / kManifest, fs::file_time_type::clock::now(), error);
    Lease(*key, request.target_dir);
    fs::remove_all(request.target_dir, error);
    fs::create_directories(fs::path(request.target_dir).parent_path(), error);
    fs::create_directory_symlink(entry, request.target_dir, error);
    if (error) {
      Release(request.target_dir);
      return Status::Internal(fmt::format("Cannot link {} to the package cache: {}",
                                          request.target_dir, error.message()));
    }
  }
  AppendLog(request.log_path, fmt::format("{} packages in cache entry {}",
                                          installed ? "Installed" : "Using installed", *key));
  if (installed) {
    Evict(*key);
  }
  return {};
}

Status PackageCache::Install(const StageRequest& request, const std::vector<std::string>& files,
                             const std::string& key) {
  const fs::path dir(options_.dir);
  // Temporaries of this key are a crashed install's: we hold the key's lock.
  std::error_code error;
  for (const fs::directory_entry& item : fs::directory_iterator(dir, error)) {
    if (item.path().filename().string().starts_with(key + std::string(kTemporary))) {
      fs::remove_all(item.path(), error);
    }
  }
  // The server's directory, the run-as user's only for the install (package_entry.h).
  const fs::path temporary = dir / (key + UniqueSuffix());
  TY_RETURN_IF_ERROR(CreateInstallDir(temporary.string(), options_.user));
  StageRequest install = request;
  install.target_dir = temporary.string();
  install.package_files = files;
  Status installed = installer_.Stage(install);
  if (installed.ok()) {
    // The server's and read-only before it counts its bytes and it gets a manifest and a name.
    installed = SealInstall(temporary.string(), options_.user);
  }
  if (installed.ok()) {
    // The install ran as the job's user in `temporary`: a link it left at the manifest's name is
    // replaced, not written through (os/no_follow.h).
    std::string manifest = std::to_string(TreeBytes(temporary)) + '\n';
    for (const std::string& uri : request.package_uris) {
      manifest += uri + '\n';
    }
    installed = os::ReplaceFileNoFollow((temporary / kManifest).string(), manifest);
  }
  if (installed.ok()) {
    fs::rename(temporary, dir / key, error);
    if (error) {
      installed = Status::Internal(fmt::format("Cannot move {} into the package cache: {}",
                                               temporary.string(), error.message()));
    }
  }
  if (!installed.ok()) {
    fs::remove_all(temporary, error);
  }
  return installed;
}

namespace {

std::string LeaseName(const std::string& target_dir) {
  Sha256 digest;
  digest.Add(fs::absolute(target_dir).lexically_normal().string());
  return digest.Hex().substr(0, 32);
}

}  // namespace

void PackageCache::Lease(const std::string& key, const std::string& target_dir) {
  const fs::path leases = fs::path(options_.dir) / "leases" / key;
  std::error_code error;
  fs::create_directories(leases, error);
  fs::permissions(leases, fs::perms::owner_all, error);
  // An older server left leases/ writable by the job user's group: never through a link.
  (void)os::ReplaceFileNoFollow((leases / LeaseName(target_dir)).string(),
                                fs::absolute(target_dir).string() + '\n');
}

void PackageCache::Release(const std::string& target_dir) {
  std::error_code error;
  const fs::path entry = fs::read_symlink(target_dir, error);
  if (error || !IsKey(entry.filename().string())) {
    return;
  }
  fs::remove(fs::path(options_.dir) / "leases" / entry.filename() / LeaseName(target_dir), error);
}

bool PackageCache::InUse(const std::string& key) const {
  const fs::path entry = fs::path(options_.dir) / key;
  std::error_code error;
  for (const fs::directory_entry& lease :
       fs::directory_iterator(fs::path(options_.dir) / "leases" / key, error)) {
    std::string target_dir;
    std::getline(std::ifstream(lease.path()), target_dir);
    std::error_code link_error;
    if (fs::read_symlink(target_dir, link_error) == entry) {
      return true;
    }
    fs::remove(lease.path(), link_error);  // stale: the job's directory went or moved on
  }
  return false;
}

std::vector<PackageCache::Entry> PackageCache::Entries() const {
  std::vector<std::pair<fs::file_time_type, Entry>> found;
  std::error_code error;
  for (const fs::directory_entry& item : fs::directory_iterator(options_.dir, error)) {
    const std::string name = item.path().filename().string();
    std::error_code item_error;
    const fs::file_time_type used = fs::last_write_time(item.path() / kManifest, item_error);
    if (!IsKey(name) || item_error) {
      continue;
    }
    std::uint64_t bytes = 0;
    std::ifstream(item.path() / kManifest) >> bytes;
    found.emplace_back(used, Entry{.key = name, .bytes = bytes});
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Entry> entries;
  entries.reserve(found.size());
  for (auto& [used, entry] : found) {
    entries.push_back(std::move(entry));
  }
  return entries;
}

void PackageCache::Evict(const std::string& keep) {
  if (options_.max_bytes == 0) {
    return;
  }
  const std::vector<Entry> entries = Entries();
  std::uint64_t total = 0;
  for (const Entry& entry : entries) {
    total += entry.bytes;
  }
  const fs::path dir(options_.dir);
  for (const Entry& entry : entries) {
    if (total <= options_.max_bytes) {
      break;
    }
    if (entry.key == keep) {
      continue;
    }
    // Not waiting: a key being installed or used right now is not the least recently used.
    const KeyLock lock(dir / (entry.key + ".lock"), false);
    if (!lock.held() || InUse(entry.key)) {
      continue;
    }
    RemoveEntry(dir / entry.key);
    std::error_code error;
    fs::remove_all(dir / "leases" / entry.key, error);
    total -= entry.bytes;
  }
}

void PackageCache::RemoveTemporaries() {
  std::error_code error;
  for (const fs::directory_entry& item : fs::directory_iterator(options_.dir, error)) {
    const std::string name = item.path().filename().string();
    const std::size_t at = name.find(kTemporary);
    if (at == std::string::npos || !IsKey(name.substr(0, at))) {
      continue;
    }
    // Not while another process installs that key (it holds the lock).
    const KeyLock lock(item.path().parent_path() / (name.substr(0, at) + ".lock"), false);
    if (lock.held()) {
      std::error_code remove_error;
      fs::remove_all(item.path(), remove_error);
    }
  }
}

}  // namespace trainyard::run::local
