// Files embedded in the binary at build time (cmake/embed.cmake's ty_embed_files): the data a
// module ships (catalog tables, roles, discovery documents, the console) stays data in the source
// tree. The generated source of each embedding defines, in the namespace it is given,
//
//   trainyard::base::EmbeddedFiles Embedded();
//
// which its module declares and looks files up in by their base names.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace trainyard::base {

struct EmbeddedFile {
  std::string_view name;   // the file's base name in the source tree, "machine_types.json"
  std::string_view bytes;  // its contents as built
};

class EmbeddedFiles {
 public:
  constexpr explicit EmbeddedFiles(std::span<const EmbeddedFile> files) : files_(files) {}

  // Every file, in the order the build listed them.
  std::span<const EmbeddedFile> All() const { return files_; }
  // The bytes of the file named `name`, or nullopt when none is.
  std::optional<std::string_view> Find(std::string_view name) const;
  // The bytes of `name`, which the module's own build embeds: its absence is a defect of the
  // build, not of input, so it aborts (TY_CHECK) naming the file.
  std::string_view Get(std::string_view name) const;

 private:
  std::span<const EmbeddedFile> files_;
};

}  // namespace trainyard::base
