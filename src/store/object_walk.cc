// `WalkObjects` (object_files.h): the ordered, pruned directory walk behind object listings.
#include <algorithm>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/unique_fd.h"
#include "store/object_files.h"
#include "store/object_names.h"

namespace trainyard::store::internal {
namespace {

struct DirEntry {
  std::string key;  // the name, with a "/" appended for a directory: byte order of object names
  bool is_dir = false;
  FileStat stat;
};

// The regular files and real directories of `dir`, sorted by key. Names that cannot be part of
// an object name ("a\nb") are left out.
std::vector<DirEntry> ReadDir(int dir_fd) {
  std::vector<DirEntry> entries;
  for (auto& [name, st] : DirectoryEntries(dir_fd)) {
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
      continue;  // symbolic links, sockets, …
    }
    if (!CheckObjectName("", name, NameUse::kWrite).ok()) {
      continue;
    }
    DirEntry out{.key = std::move(name), .is_dir = S_ISDIR(st.st_mode)};
    if (out.is_dir) {
      out.key += '/';
    } else {
      out.stat = StatOf(st);
    }
    entries.push_back(std::move(out));
  }
  std::ranges::sort(entries, {}, &DirEntry::key);  // std::string compares bytes as unsigned
  return entries;
}

// The subdirectory of `entry` (a directory's) in `dir_fd`, never through a link: -1 in `fd`
// when it was swapped for something else since it was read.
os::UniqueFd OpenSubdir(int dir_fd, const DirEntry& entry) {
  const std::string name = entry.key.substr(0, entry.key.size() - 1);
  return os::UniqueFd(
      ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

// Whether the filter's offsets and glob keep the object `name`.
bool Selected(const WalkFilter& filter, std::string_view name) {
  return name >= filter.start_offset && (filter.end_offset.empty() || name < filter.end_offset) &&
         (filter.glob == nullptr || filter.glob->Matches(name));
}

// Whether no object below the directory `dir` (ending with "/") can be within the offsets.
bool OutsideOffsets(const WalkFilter& filter, const std::string& dir) {
  // Every name below starts with `dir`: all are >= it, and all are < the start offset when `dir`
  // is and is not a beginning of it.
  return (!filter.end_offset.empty() && dir >= filter.end_offset) ||
         (dir < filter.start_offset && !filter.start_offset.starts_with(dir));
}

// True when some valid object the filter keeps lies below the directory `dir_fd`, whose objects'
// names start with `rel`.
bool HoldsObjects(int dir_fd, const std::string& rel, const WalkFilter& filter) {
  for (const DirEntry& entry : ReadDir(dir_fd)) {
    std::string name = rel + entry.key;
    if (!entry.is_dir) {
      if (Selected(filter, name)) {
        return true;
      }
      continue;
    }
    if (OutsideOffsets(filter, name)) {
      continue;
    }
    const os::UniqueFd sub = OpenSubdir(dir_fd, entry);
    if (sub.get() >= 0 && HoldsObjects(sub.get(), name, filter)) {
      return true;
    }
  }
  return false;
}

class Walker {
 public:
  Walker(const WalkFilter& filter, std::string_view after, int max)
      : filter_(filter),
        prefix_(filter.prefix),
        delimiter_(filter.delimiter),
        after_(after),
        max_(max) {}

  // Visits the directory `dir_fd`, whose objects' names start with `rel` ("" or ending with
  // "/"); false once the page is full and one more entry was seen.
  bool Visit(int dir_fd, const std::string& rel) {
    for (DirEntry& entry : ReadDir(dir_fd)) {
      std::string name = rel + entry.key;
      if (!entry.is_dir) {
        if (!Offer(std::move(name), entry.stat)) {
          return false;
        }
        continue;
      }
      // Every object below has a name starting with `name` (which ends with "/").
      if (!name.starts_with(prefix_) && !prefix_.starts_with(name)) {
        continue;
      }
      if (!after_.empty() && name < after_ && !after_.starts_with(name)) {
        continue;  // all of it was on earlier pages
      }
      if (OutsideOffsets(filter_, name)) {
        continue;
      }
      const os::UniqueFd sub = OpenSubdir(dir_fd, entry);
      if (sub.get() < 0) {
        continue;
      }
      if (const std::size_t pos = FoldAt(name); pos != std::string::npos) {
        // Every object below folds into the same prefix: no need to walk it all.
        std::string folded = name.substr(0, pos + delimiter_.size());
        if (folded != last_key_ && folded > after_ && HoldsObjects(sub.get(), name, filter_)) {
          if (!Add(TreeEntry{.name = std::move(folded), .is_prefix = true})) {
            return false;
          }
        }
        continue;
      }
      if (!Visit(sub.get(), name)) {
        return false;
      }
    }
    return true;
  }

  TreePage Take() { return std::move(page_); }

 private:
  // Where the delimiter starts after the prefix in `name` (npos when it does not).
  std::size_t FoldAt(const std::string& name) const {
    if (delimiter_.empty() || !name.starts_with(prefix_)) {
      return std::string::npos;
    }
    return name.find(delimiter_, prefix_.size());
  }

  bool Offer(std::string name, const FileStat& stat) {
    if (!name.starts_with(prefix_) || !CheckObjectName("", name, NameUse::kWrite).ok() ||
        !Selected(filter_, name)) {
      return true;
    }
    TreeEntry entry{.name = std::move(name), .stat = stat};
    if (const std::size_t pos = FoldAt(entry.name); pos != std::string::npos) {
      entry.name.resize(pos + delimiter_.size());
      entry.is_prefix = true;
      entry.stat = {};
    }
    if (entry.name <= after_ || (entry.is_prefix && entry.name == last_key_)) {
      return true;
    }
    return Add(std::move(entry));
  }

  bool Add(TreeEntry entry) {
    if (static_cast<int>(page_.entries.size()) == max_) {
      page_.more = true;
      return false;
    }
    last_key_ = entry.name;
    page_.entries.push_back(std::move(entry));
    return true;
  }

  const WalkFilter& filter_;
  const std::string prefix_;
  const std::string delimiter_;
  const std::string after_;
  const int max_;
  std::string last_key_;
  TreePage page_;
};

}  // namespace

TreePage WalkObjects(int bucket_fd, const WalkFilter& filter, std::string_view after,
                     int max_entries) {
  Walker walker(filter, after, std::max(1, max_entries));
  walker.Visit(bucket_fd, "");
  return walker.Take();
}

}  // namespace trainyard::store::internal
