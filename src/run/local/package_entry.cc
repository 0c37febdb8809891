#include "run/local/package_entry.h"

#include <cerrno>
#include <string_view>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainyard::run::local {
namespace {

constexpr int kMaxDepth = 128;

Status Refused(const std::string& path, std::string_view why) {
  return Status::FailedPrecondition(
      fmt::format("The package install left {} {}; it is not published.", path, why));
}

Status Failed(const std::string& path, std::string_view what) {
  return Status::Internal(fmt::format("Cannot {} {}: {}", what, path, Errno(errno)));
}

// The sealed mode of a file or directory whose mode is `mode` (see the header).
mode_t SealedMode(mode_t mode) {
  mode_t sealed = (mode & 0755) | S_IRUSR | S_IRGRP;
  if (S_ISDIR(mode)) {
    sealed |= S_IWUSR;  // the server removes what it holds when the entry is evicted
  }
  if (S_ISDIR(mode) || (mode & S_IXUSR) != 0) {
    sealed |= S_IXUSR | S_IXGRP;
  }
  return sealed;
}

class Sealer {
 public:
  explicit Sealer(const std::optional<RunAs>& user) : user_(user) {}

  // Seals the open file or directory `fd` (of `st`), then, for a directory, what it holds.
  Status Seal(int fd, const struct stat& st, const std::string& path, int depth) {
    if (user_ && fchown(fd, geteuid(), static_cast<gid_t>(user_->gid)) != 0) {
      return Failed(path, "change the owner of");
    }
    if (S_ISDIR(st.st_mode)) {
      TY_RETURN_IF_ERROR(SealChildren(fd, path, depth));
    }
    // After the owner: chown may clear set-id bits, chmod sets the final mode either way.
    if (fchmod(fd, SealedMode(st.st_mode)) != 0) {
      return Failed(path, "change the mode of");
    }
    return {};
  }

 private:
  Status SealChildren(int dir_fd, const std::string& path, int depth) {
    if (depth >= kMaxDepth) {
      return Refused(path, fmt::format("more than {} directories deep", kMaxDepth));
    }
    const int list_fd = dup(dir_fd);
    DIR* dir = list_fd < 0 ? nullptr : fdopendir(list_fd);
    if (dir == nullptr) {
      if (list_fd >= 0) {
        close(list_fd);
      }
      return Failed(path, "list");
    }
    Status status;
    errno = 0;
    for (dirent* item = readdir(dir); item != nullptr && status.ok(); item = readdir(dir)) {
      const std::string_view name = item->d_name;
      if (name != "." && name != "..") {
        status = SealChild(dir_fd, std::string(name), path + "/" + std::string(name), depth);
      }
    }
    closedir(dir);
    return status;
  }

  Status SealChild(int dir_fd, const std::string& name, const std::string& path, int depth) {
    struct stat st {};
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return Failed(path, "inspect");
    }
    if (S_ISLNK(st.st_mode)) {
      if (user_ && fchownat(dir_fd, name.c_str(), geteuid(), static_cast<gid_t>(user_->gid),
                            AT_SYMLINK_NOFOLLOW) != 0) {
        return Failed(path, "change the owner of");
      }
      return {};
    }
    if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
      return Refused(path, "with more than one link");
    }
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
      return Refused(path, "which is not a regular file, directory or link");
    }
    const int fd = openat(
        dir_fd, name.c_str(),
        O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
    if (fd < 0) {
      return Failed(path, "open");
    }
    struct stat opened {};
    Status status;
    if (fstat(fd, &opened) != 0 || opened.st_ino != st.st_ino || opened.st_dev != st.st_dev) {
      status = Refused(path, "replaced while it was sealed");
    } else {
      status = Seal(fd, opened, path, depth + 1);
    }
    close(fd);
    return status;
  }

  const std::optional<RunAs>& user_;
};

}  // namespace

Status CreateInstallDir(const std::string& dir, const std::optional<RunAs>& user) {
  if (mkdir(dir.c_str(), 0700) != 0) {
    return Failed(dir, "create");
  }
  // chmod too: the server's umask may have taken bits away, and a set-group-id parent adds one.
  if (user &&
      lchown(dir.c_str(), static_cast<uid_t>(user->uid), static_cast<gid_t>(user->gid)) != 0) {
    return Failed(dir, "hand to the run-as user");
  }
  if (chmod(dir.c_str(), 0700) != 0) {
    return Failed(dir, "change the mode of");
  }
  return {};
}

Status SealInstall(const std::string& dir, const std::optional<RunAs>& user) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return Failed(dir, "open");
  }
  struct stat st {};
  Status status = fstat(fd, &st) == 0 ? Sealer(user).Seal(fd, st, dir, 0) : Failed(dir, "inspect");
  close(fd);
  return status;
}

}  // namespace trainyard::run::local
