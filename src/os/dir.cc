#include "os/dir.h"

#include <cerrno>
#include <utility>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/io_error.h"
#include "os/no_follow.h"
#include "os/stat_info.h"

namespace trainyard::os {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// A status of os/no_follow.h's, which names the entry relative to `dir`, with `dir` added.
Status Beneath(const Status& status, const std::string& dir) {
  return Status::FromCode(status.code(), status.message() + " (beneath " + dir + ")");
}

}  // namespace

Result<Dir> Dir::Open(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), kDirFlags));
  if (!fd.valid()) {
    return IoError("open the directory", path, errno);
  }
  return Dir(path, std::move(fd));
}

Result<Dir> Dir::OpenOrMake(const std::string& path, std::uint32_t permissions) {
  if (::mkdir(path.c_str(), static_cast<mode_t>(permissions)) != 0 && errno != EEXIST) {
    return IoError("create the directory", path, errno);
  }
  return Open(path);
}

std::string Dir::Shown(std::string_view relative) const {
  return path_ + "/" + std::string(relative);
}

Status Dir::CheckName(std::string_view name) const {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos) {
    return Status::InvalidArgument("Not the name of one entry of " + path_ + ": \"" +
                                   std::string(name) + "\"");
  }
  return {};
}

Result<Dir> Dir::Reopen() const {
  UniqueFd fd(::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    return IoError("open the directory", path_, errno);
  }
  return Dir(path_, std::move(fd));
}

Result<Dir> Dir::OpenDir(std::string_view relative) const {
  Result<UniqueFd> fd = OpenBeneath(fd_.get(), relative, O_RDONLY | O_DIRECTORY);
  if (!fd.ok()) {
    return Beneath(fd.status(), path_);
  }
  return Dir(Shown(relative), *std::move(fd));
}

Result<Dir> Dir::MakeDir(const std::string& name, std::uint32_t permissions) const {
  TY_RETURN_IF_ERROR(CheckName(name));
  Result<UniqueFd> fd = OpenOrMakeDirAt(fd_.get(), name, static_cast<mode_t>(permissions));
  if (!fd.ok()) {
    return fd.status();
  }
  return Dir(Shown(name), *std::move(fd));
}

Result<Dir> Dir::MakeDirs(std::string_view relative, std::uint32_t permissions) const {
  Result<UniqueFd> fd = MakeDirsBeneath(fd_.get(), relative, static_cast<mode_t>(permissions));
  if (!fd.ok()) {
    return fd.status();
  }
  return Dir(Shown(relative), *std::move(fd));
}

Result<File> Dir::OpenFile(std::string_view relative, OpenMode mode,
                           std::uint32_t permissions) const {
  Result<UniqueFd> fd =
      OpenBeneath(fd_.get(), relative, File::Flags(mode), static_cast<mode_t>(permissions));
  if (!fd.ok()) {
    return Beneath(fd.status(), path_);
  }
  return File::Adopt(Shown(relative), *std::move(fd));
}

Result<FileStatus> Dir::Stat(std::string_view relative) const {
  struct stat st {};
  if (relative.find('/') == std::string_view::npos) {
    TY_RETURN_IF_ERROR(CheckName(relative));
    const std::string name(relative);
    if (::fstatat(fd_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return IoError("describe", Shown(relative), errno);
    }
    return internal::ToFileStatus(st);
  }
  Result<UniqueFd> fd = OpenBeneath(fd_.get(), relative, O_PATH | O_NOFOLLOW);
  if (!fd.ok()) {
    return Beneath(fd.status(), path_);
  }
  if (::fstat(fd->get(), &st) != 0) {
    return IoError("describe", Shown(relative), errno);
  }
  return internal::ToFileStatus(st);
}

Result<FileStatus> Dir::Info() const {
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) {
    return IoError("describe", path_, errno);
  }
  return internal::ToFileStatus(st);
}

Status Dir::SetPermissions(std::uint32_t mode) const {
  if (::fchmod(fd_.get(), static_cast<mode_t>(mode & 07777)) != 0) {
    return IoError("change the mode of", path_, errno);
  }
  return {};
}

Result<std::vector<DirEntry>> Dir::List() const {
  // A descriptor of its own: readdir moves its offset, and closedir closes it.
  const int fd = ::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* handle = fd < 0 ? nullptr : ::fdopendir(fd);
  if (handle == nullptr) {
    const int err = errno;
    if (fd >= 0) {
      ::close(fd);
    }
    return IoError("list", path_, err);
  }
  std::vector<DirEntry> entries;
  errno = 0;
  while (const dirent* entry = ::readdir(handle)) {
    const std::string_view name = entry->d_name;
    struct stat st {};
    if (name != "." && name != ".." &&
        ::fstatat(fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      entries.push_back(DirEntry{.name = std::string(name), .info = internal::ToFileStatus(st)});
    }
    errno = 0;
  }
  const int err = errno;
  ::closedir(handle);
  if (err != 0) {
    return IoError("list", path_, err);
  }
  return entries;
}

Status Dir::Rename(const std::string& from, const Dir& target, const std::string& to) const {
  TY_RETURN_IF_ERROR(CheckName(from));
  TY_RETURN_IF_ERROR(target.CheckName(to));
  if (::renameat(fd_.get(), from.c_str(), target.fd_.get(), to.c_str()) != 0) {
    return IoError("rename " + Shown(from) + " to", target.Shown(to), errno);
  }
  return {};
}

Status Dir::Remove(const std::string& name) const {
  TY_RETURN_IF_ERROR(CheckName(name));
  if (::unlinkat(fd_.get(), name.c_str(), 0) != 0) {
    return IoError("remove", Shown(name), errno);
  }
  return {};
}

Status Dir::RemoveAll(const std::string& name) const {
  TY_RETURN_IF_ERROR(CheckName(name));
  if (::unlinkat(fd_.get(), name.c_str(), 0) == 0 || errno == ENOENT) {
    return {};
  }
  Result<Dir> dir = OpenDir(name);
  if (!dir.ok()) {
    return dir.status();
  }
  Result<std::vector<DirEntry>> entries = dir->List();
  if (!entries.ok()) {
    return entries.status();
  }
  for (const DirEntry& entry : *entries) {
    TY_RETURN_IF_ERROR(dir->RemoveAll(entry.name));
  }
  if (::unlinkat(fd_.get(), name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return IoError("remove", Shown(name), errno);
  }
  return {};
}

Status Dir::Sync() const {
  if (::fsync(fd_.get()) != 0) {
    return IoError("flush", path_, errno);
  }
  return {};
}

Status RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) {
    return IoError("remove", path, errno);
  }
  return {};
}

}  // namespace trainyard::os
