#include "run/local/sandbox.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
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

// The components of the absolute `path`, outermost first.
std::vector<std::string> Names(const std::string& path) {
  std::vector<std::string> out;
  for (std::size_t at = 1; at < path.size();) {
    const std::size_t slash = std::min(path.find('/', at), path.size());
    if (slash > at) {
      out.push_back(path.substr(at, slash - at));
    }
    at = slash + 1;
  }
  return out;
}

// `path` with its links resolved (realpath(3)), or as it is when that fails (it is missing).
std::string RealPath(const std::string& path) {
  std::array<char, PATH_MAX> real{};
  return realpath(path.c_str(), real.data()) != nullptr ? std::string(real.data()) : path;
}

// The directory `name` in `dir`, opened O_PATH without following a link, made (0755) first when
// missing and `make`. Returns the descriptor or -errno: -ELOOP for a link, -ENOTDIR for another
// kind of file.
int OpenDirAt(int dir, const char* name, bool make) noexcept {
  constexpr int kFlags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int fd = openat(dir, name, kFlags);
  if (fd < 0 && errno == ENOENT && make) {
    if (mkdirat(dir, name, 0755) != 0 && errno != EEXIST) {
      return -errno;
    }
    fd = openat(dir, name, kFlags);
  }
  if (fd >= 0) {
    return fd;
  }
  const int error = errno;
  struct stat kind {};  // O_PATH | O_NOFOLLOW | O_DIRECTORY answers ENOTDIR for a link
  if (error == ENOTDIR && fstatat(dir, name, &kind, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(kind.st_mode)) {
    return -ELOOP;
  }
  return -error;
}

// The directory holding the last of `names`, walked to from "/" a component at a time (missing
// ones made when `make`), never through a link. Returns the descriptor or -errno.
int OpenParent(const std::vector<std::string>& names, bool make) noexcept {
  int at = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (at < 0) {
    return -errno;
  }
  for (std::size_t i = 0; i + 1 < names.size(); ++i) {
    const int next = OpenDirAt(at, names[i].c_str(), make);
    close(at);
    if (next < 0) {
      return next;
    }
    at = next;
  }
  return at;
}

// What is now at `name` in `dir` (the root of what was mounted there), opened O_PATH. Returns the
// descriptor or -errno.
int OpenMounted(int dir, const char* name) noexcept {
  const int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

// A mount point for a bind of `source` at `name` in `dir`: a directory, or an empty file, made
// when missing; never a link. Returns its O_PATH descriptor or -errno.
int MakeMountPoint(int dir, const char* name, int source) noexcept {
  struct stat kind {};
  if (fstat(source, &kind) == 0 && S_ISDIR(kind.st_mode)) {
    return OpenDirAt(dir, name, true);
  }
  const int made = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (made < 0 && errno != EEXIST) {
    return -errno;
  }
  if (made >= 0) {
    close(made);
  }
  const int fd = OpenMounted(dir, name);
  if (fd >= 0 && (fstat(fd, &kind) != 0 || S_ISLNK(kind.st_mode))) {
    close(fd);
    return -ELOOP;
  }
  return fd;
}

// Closes `fd` when it is open and marks it closed.
void CloseFd(int& fd) noexcept {
  if (fd >= 0) {
    close(fd);
    fd = -1;
  }
}

int ShowCover(PreparedView::Cover& cover) noexcept;
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
  // Where the mounts go: links in the covered directories' paths are resolved here, outside the
  // job's namespace, where nothing of the job's is mounted yet (the header says why).
  std::vector<std::pair<std::string, std::string>> named_and_real;
  for (Cover& cover : covers_) {
    std::string real = RealPath(cover.path);
    named_and_real.emplace_back(cover.path, real);
    cover.path = std::move(real);
    cover.names = Names(cover.path);
  }
  for (Bind& bind : binds_) {
    std::string target;
    std::size_t below = 0;  // the length of the innermost covered directory it lies in
    for (const auto& [named, real] : named_and_real) {
      if (named.size() > below && bind.path.starts_with(named) &&
          (bind.path.size() == named.size() || bind.path[named.size()] == '/')) {
        target = real + bind.path.substr(named.size());
        below = named.size();
      }
    }
    if (below == 0) {
      const std::size_t slash = bind.path.rfind('/');
      target = (slash == 0 ? "" : RealPath(bind.path.substr(0, slash))) + bind.path.substr(slash);
    }
    bind.names = Names(target);
    bind.length = target.size();
  }
  // A shorter path never lies under a longer one: sorted so, an outer mount comes first and one
  // under it shows through it.
  std::stable_sort(covers_.begin(), covers_.end(),
                   [](const Cover& a, const Cover& b) { return a.path.size() < b.path.size(); });
  std::stable_sort(binds_.begin(), binds_.end(),
                   [](const Bind& a, const Bind& b) { return a.length < b.length; });
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
  for (PreparedView::Cover& cover : view.covers_) {
    if (error == 0 && !cover.names.empty()) {
      error = ShowCover(cover);
    }
    CloseFd(cover.fd);
  }
  for (PreparedView::Bind& bind : view.binds_) {
    if (error == 0 && bind.fd >= 0 && !bind.names.empty()) {
      error = ShowBind(bind);
    }
    CloseFd(bind.fd);
  }
  for (PreparedView::Cover& cover : view.covers_) {
    std::array<char, 32> target{};
    if (error == 0 && cover.mounted >= 0 &&
        mount(nullptr, FdPath(cover.mounted, target), nullptr,
              MS_REMOUNT | MS_BIND | MS_RDONLY | kNoDevices, nullptr) != 0) {
      error = errno;
    }
    CloseFd(cover.mounted);
  }
  return error;
}

namespace {

int ShowCover(PreparedView::Cover& cover) noexcept {
  const int parent = OpenParent(cover.names, cover.hidden);
  if (parent < 0) {
    // A private directory this machine does not have is left as it is; a link is refused.
    return cover.hidden || parent == -ELOOP ? -parent : 0;
  }
  const char* name = cover.names.back().c_str();
  const int point = OpenDirAt(parent, name, cover.hidden);
  int error = point == -ELOOP || (point < 0 && cover.hidden) ? -point : 0;
  std::array<char, 32> source{};
  std::array<char, 32> target{};
  if (point >= 0 && cover.fd >= 0 &&
      mount(FdPath(cover.fd, source), FdPath(point, target), nullptr, MS_BIND | MS_REC, nullptr) !=
          0) {
    error = errno;
  }
  if (point >= 0 && cover.fd < 0 &&
      mount("tmpfs", FdPath(point, target), "tmpfs", kNoDevices, cover.options.c_str()) != 0) {
    error = errno;
  }
  if (point >= 0 && error == 0 && cover.hidden) {
    // Made read-only once the binds below it are in place: through the mount's own root.
    cover.mounted = OpenMounted(parent, name);
    error = cover.mounted < 0 ? -cover.mounted : 0;
  }
  if (point >= 0) {
    close(point);
  }
  close(parent);
  return error;
}

int ShowBind(PreparedView::Bind& bind) noexcept {
  const int parent = OpenParent(bind.names, true);
  if (parent < 0) {
    return -parent;
  }
  const char* name = bind.names.back().c_str();
  const int point = MakeMountPoint(parent, name, bind.fd);
  int error = point < 0 ? -point : 0;
  std::array<char, 32> source{};
  std::array<char, 32> target{};
  if (error == 0 && mount(FdPath(bind.fd, source), FdPath(point, target), nullptr, MS_BIND | MS_REC,
                          nullptr) != 0) {
    error = errno;
  }
  if (error == 0 && bind.read_only) {
    // Through the bind's own root: the mount point's descriptor is of the directory below it.
    const int shown = OpenMounted(parent, name);
    error = shown < 0 ? -shown : 0;
    if (error == 0 && mount(nullptr, FdPath(shown, target), nullptr,
                            MS_REMOUNT | MS_BIND | MS_RDONLY | kNoDevices, nullptr) != 0) {
      error = errno;
    }
    if (shown >= 0) {
      close(shown);
    }
  }
  if (point >= 0) {
    close(point);
  }
  close(parent);
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
