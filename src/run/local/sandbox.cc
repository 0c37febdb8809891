#include "run/local/sandbox.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <string_view>

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/local/ipc_namespace.h"

namespace trainyard::run::local {
namespace {

constexpr unsigned long kNoDevices = MS_NOSUID | MS_NODEV;

// `path` without trailing slashes ("/" stays).
std::string Trimmed(std::string path) {
  while (path.size() > 1 && path.back() == '/') {
    path.pop_back();
  }
  return path;
}

// "/proc/self/fd/N" in `buffer`, without snprintf (not async-signal-safe).
const char* FdPath(int fd, std::array<char, 32>& buffer) {
  constexpr std::string_view kPrefix = "/proc/self/fd/";
  std::array<char, 12> digits{};
  std::size_t count = 0;
  auto value = static_cast<unsigned>(fd);
  do {
    digits.at(count++) = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  std::size_t at = 0;
  for (char c : kPrefix) {
    buffer.at(at++) = c;
  }
  while (count > 0) {
    buffer.at(at++) = digits.at(--count);
  }
  buffer.at(at) = '\0';
  return buffer.data();
}

// Every ancestor of `path` but "/", outermost first.
std::vector<std::string> Ancestors(const std::string& path) {
  std::vector<std::string> out;
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    out.push_back(path.substr(0, slash));
  }
  return out;
}

// mkdir for each of `dirs` that is missing. Returns 0 or an errno.
int MakeDirectories(const std::vector<std::string>& dirs) noexcept {
  for (const std::string& dir : dirs) {
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return errno;
    }
  }
  return 0;
}

// A mount point for a bind of `source` at `path`: a directory, or an empty file, when missing.
int MakeMountPoint(const char* path, int source) noexcept {
  struct stat kind {};
  if (fstat(source, &kind) == 0 && S_ISDIR(kind.st_mode)) {
    return mkdir(path, 0755) != 0 && errno != EEXIST ? errno : 0;
  }
  const int made = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (made < 0) {
    return errno;
  }
  close(made);
  return 0;
}

int ShowBind(PreparedView::Bind& bind) noexcept;

}  // namespace

PreparedView::PreparedView(const FileView& view, const std::optional<RunAs>& user) {
  auto absolute = [](const std::string& raw) {
    std::string path = Trimmed(raw);
    return !path.empty() && path.front() == '/' && path != "/" ? path : std::string();
  };
  const std::string owned = user.has_value() ? "mode=0700,uid=" + std::to_string(user->uid) +
                                                   ",gid=" + std::to_string(user->gid)
                                             : "mode=1777";
  if (std::string hidden = absolute(view.hidden); !hidden.empty()) {
    covers_.push_back(Cover{.path = hidden, .options = "mode=0755,size=1m", .hidden = true});
  }
  const std::string root = absolute(view.private_root);
  if (!root.empty()) {
    private_parents_ = Ancestors(root);
    private_parents_.push_back(root);
    private_root_ = root;
    ipc_namespace_ = IpcNamespacePath(root);
  }
  for (const std::string& dir : view.private_dirs) {
    if (std::string path = absolute(dir); !path.empty()) {
      std::string source;
      if (!root.empty()) {
        source = root;
        source += '/';
        source += path.substr(1);
        std::replace(source.begin() + static_cast<std::ptrdiff_t>(root.size()) + 1, source.end(),
                     '/', '_');
      }
      covers_.push_back(Cover{.path = path, .options = owned, .source = std::move(source)});
    }
  }
  for (const auto& [paths, read_only] :
       {std::pair{&view.writable, false}, std::pair{&view.readable, true}}) {
    for (const std::string& raw : *paths) {
      if (std::string path = absolute(raw); !path.empty()) {
        binds_.push_back(Bind{.path = path, .read_only = read_only});
      }
    }
  }
  // A shorter path never lies under a longer one: sorted so, an outer mount comes first and one
  // under it shows through it.
  auto by_length = [](const auto& a, const auto& b) { return a.path.size() < b.path.size(); };
  std::stable_sort(covers_.begin(), covers_.end(), by_length);
  std::stable_sort(binds_.begin(), binds_.end(), by_length);
  for (Cover& cover : covers_) {
    cover.parents = Ancestors(cover.path);
  }
  for (Bind& bind : binds_) {
    bind.parents = Ancestors(bind.path);
  }
}

int EnterView(PreparedView& view) noexcept {
  // The job's own private directories, made when missing (an earlier replica of the job may have),
  // below a root only root may enter, so nobody else on the machine reaches them. The job's IPC
  // namespace is mounted there, from the machine's mount namespace, before this one has its own.
  for (const std::string& dir : view.private_parents_) {
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return errno;
    }
  }
  const bool shared_ipc = !view.ipc_namespace_.empty();
  if (const int error = EnterIpcNamespace(shared_ipc ? view.ipc_namespace_.c_str() : nullptr,
                                          view.private_root_.c_str());
      error != 0) {
    return error;
  }
  if (unshare(CLONE_NEWNS) != 0 ||
      mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return errno;
  }
  // The directories made for the view are passable by the job's user whatever the server's
  // umask (007 under --run-as); the job gets the umask back.
  const mode_t umask_before = umask(0);
  const int error = PreparedView::Show(view);
  umask(umask_before);
  return error;
}

int PreparedView::Show(PreparedView& view) noexcept {
  for (PreparedView::Cover& cover : view.covers_) {
    if (cover.source.empty()) {
      continue;
    }
    if (mkdir(cover.source.c_str(), 01777) != 0 && errno != EEXIST) {
      return errno;
    }
    cover.fd = open(cover.source.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    if (cover.fd < 0) {
      return errno;
    }
  }
  // The sources are opened before anything covers them.
  for (PreparedView::Bind& bind : view.binds_) {
    bind.fd = open(bind.path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (bind.fd < 0 && errno != ENOENT && errno != ELOOP && errno != ENOTDIR) {
      return errno;
    }
    struct stat kind {};  // O_PATH | O_NOFOLLOW opens a link itself: it is left out
    if (bind.fd >= 0 && (fstat(bind.fd, &kind) != 0 || S_ISLNK(kind.st_mode))) {
      close(bind.fd);
      bind.fd = -1;
    }
  }
  int error = 0;
  for (const PreparedView::Cover& cover : view.covers_) {
    struct stat existing {};
    if (error == 0 && !cover.hidden &&
        (stat(cover.path.c_str(), &existing) != 0 || !S_ISDIR(existing.st_mode))) {
      continue;  // a private directory this machine does not have
    }
    if (error == 0) {
      error = MakeDirectories(cover.parents);
    }
    if (error == 0 && cover.hidden && mkdir(cover.path.c_str(), 0755) != 0 && errno != EEXIST) {
      error = errno;
    }
    std::array<char, 32> source{};
    if (error == 0 && cover.fd >= 0 &&
        mount(FdPath(cover.fd, source), cover.path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) !=
            0) {
      error = errno;
    }
    if (error == 0 && cover.fd < 0 &&
        mount("tmpfs", cover.path.c_str(), "tmpfs", kNoDevices, cover.options.c_str()) != 0) {
      error = errno;
    }
  }
  for (PreparedView::Cover& cover : view.covers_) {
    if (cover.fd >= 0) {
      close(cover.fd);
      cover.fd = -1;
    }
  }
  for (PreparedView::Bind& bind : view.binds_) {
    if (error == 0 && bind.fd >= 0) {
      error = ShowBind(bind);
    }
  }
  for (PreparedView::Bind& bind : view.binds_) {
    if (bind.fd >= 0) {
      close(bind.fd);
      bind.fd = -1;
    }
  }
  for (const PreparedView::Cover& cover : view.covers_) {
    if (error == 0 && cover.hidden &&
        mount(nullptr, cover.path.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | kNoDevices,
              nullptr) != 0) {
      error = errno;
    }
  }
  return error;
}

namespace {

int ShowBind(PreparedView::Bind& bind) noexcept {
  int error = MakeDirectories(bind.parents);
  if (error == 0) {
    error = MakeMountPoint(bind.path.c_str(), bind.fd);
  }
  std::array<char, 32> source{};
  if (error == 0 &&
      mount(FdPath(bind.fd, source), bind.path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
    error = errno;
  }
  if (error == 0 && bind.read_only &&
      mount(nullptr, bind.path.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | kNoDevices,
            nullptr) != 0) {
    error = errno;
  }
  return error;
}

}  // namespace

int MountProc() noexcept {
  if (mount("proc", "/proc", "proc", kNoDevices | MS_NOEXEC, nullptr) != 0) {
    return errno;
  }
  return 0;
}

}  // namespace trainyard::run::local
