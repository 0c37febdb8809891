#include "server/multipart.h"

#include <algorithm>
#include <cctype>
#include <span>

#include <fmt/format.h>

#include "os/file.h"
#include "os/file_status.h"

namespace trainyard::server {
namespace {

constexpr std::size_t kHeadBytes = std::size_t{1} << 20;
constexpr std::size_t kTailBytes = std::size_t{4} << 10;
constexpr std::size_t kCopyChunk = std::size_t{1} << 20;

Status BadBody(std::string description) {
  return Status::InvalidArgument({{"body", std::move(description)}});
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view Trim(std::string_view s) {
  const std::size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string_view::npos) {
    return {};
  }
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

// The boundary parameter of a multipart/related Content-Type, unquoted.
Result<std::string> Boundary(std::string_view content_type) {
  const std::string lower = Lower(content_type);
  if (Trim(std::string_view(lower).substr(0, lower.find(';'))) != "multipart/related") {
    return Status::InvalidArgument(
        {{"Content-Type", fmt::format("uploadType=multipart needs a multipart/related body; got "
                                      "\"{}\".",
                                      content_type)}});
  }
  const std::size_t at = lower.find("boundary=");
  std::string_view value;
  if (at != std::string::npos) {
    value = content_type.substr(at + 9);
    if (!value.empty() && (value.front() == '"' || value.front() == '\'')) {
      const std::size_t close = value.find(value.front(), 1);
      value = close == std::string_view::npos ? std::string_view() : value.substr(1, close - 1);
    } else {
      value = Trim(value.substr(0, value.find(';')));
    }
  }
  if (value.empty()) {
    return Status::InvalidArgument(
        {{"Content-Type", "The multipart/related Content-Type has no boundary."}});
  }
  return std::string(value);
}

// Skips one line end (CRLF or LF) at `pos`; npos when there is none.
std::size_t SkipLineEnd(std::string_view text, std::size_t pos) {
  if (text.substr(pos, 2) == "\r\n") {
    return pos + 2;
  }
  if (text.substr(pos, 1) == "\n") {
    return pos + 1;
  }
  return std::string_view::npos;
}

// A part's headers starting at `pos`: returns where its body starts and sets `content_type`.
std::size_t ReadPartHeaders(std::string_view text, std::size_t pos, std::string& content_type) {
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      return std::string_view::npos;
    }
    std::string_view line = text.substr(pos, end - pos);
    if (line.ends_with('\r')) {
      line.remove_suffix(1);
    }
    pos = end + 1;
    if (line.empty()) {
      return pos;  // the blank line ends the headers
    }
    const std::size_t colon = line.find(':');
    if (colon != std::string_view::npos && Lower(Trim(line.substr(0, colon))) == "content-type") {
      content_type = std::string(Trim(line.substr(colon + 1)));
    }
  }
  return std::string_view::npos;
}

// The start of the line end before the delimiter at `pos` (the line end belongs to it).
std::size_t BeforeLineEnd(std::string_view text, std::size_t pos) {
  if (pos >= 2 && text.substr(pos - 2, 2) == "\r\n") {
    return pos - 2;
  }
  if (pos >= 1 && text[pos - 1] == '\n') {
    return pos - 1;
  }
  return pos;
}

Result<std::string> ReadAt(int fd, std::uint64_t offset, std::size_t size,
                           const std::string& path) {
  std::string out(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    std::size_t got = 0;
    const int error =
        os::ReadAt(fd, offset + done, std::span<char>(out.data() + done, size - done), got);
    if (error != 0 || got == 0) {
      return Status::Unavailable(fmt::format(
          "cannot read {}: {}", path, got == 0 && error == 0 ? "unexpected end" : Errno(error)));
    }
    done += got;
  }
  return out;
}

}  // namespace

Result<MultipartRelated> ParseMultipartRelated(std::string_view content_type, std::string_view head,
                                               std::string_view tail, std::uint64_t total) {
  Result<std::string> boundary = Boundary(content_type);
  if (!boundary.ok()) {
    return boundary.status();
  }
  const std::string delimiter = "--" + *boundary;
  std::size_t pos = head.find(delimiter);
  if (pos == std::string_view::npos) {
    return BadBody("The multipart body does not start with its boundary.");
  }
  pos = SkipLineEnd(head, pos + delimiter.size());
  std::string ignored;
  pos = pos == std::string_view::npos ? pos : ReadPartHeaders(head, pos, ignored);
  const std::size_t metadata_end = pos == std::string_view::npos ? pos : head.find(delimiter, pos);
  if (metadata_end == std::string_view::npos) {
    return BadBody("The multipart body's metadata part is malformed.");
  }
  MultipartRelated out;
  out.metadata = std::string(head.substr(pos, BeforeLineEnd(head, metadata_end) - pos));
  pos = SkipLineEnd(head, metadata_end + delimiter.size());
  pos = pos == std::string_view::npos ? pos : ReadPartHeaders(head, pos, out.media_content_type);
  if (pos == std::string_view::npos) {
    return BadBody("The multipart body has no media part after its metadata.");
  }
  out.media_offset = pos;
  const std::size_t close = tail.rfind(delimiter + "--");
  if (close == std::string_view::npos) {
    return BadBody("The multipart body does not end with its closing boundary.");
  }
  const std::uint64_t media_end = total - tail.size() + BeforeLineEnd(tail, close);
  if (media_end < out.media_offset) {
    return BadBody("The multipart body's media part is malformed.");
  }
  out.media_length = media_end - out.media_offset;
  return out;
}

Result<MultipartRelated> ParseMultipartFile(std::string_view content_type,
                                            const std::string& path) {
  int error = 0;
  Result<os::UniqueFd> fd = os::OpenForReading(path, &error);
  if (!fd.ok()) {
    return Status::Unavailable(fmt::format("cannot read {}: {}", path, Errno(error)));
  }
  Result<os::FileStatus> st = os::StatFd(fd->get());
  if (!st.ok()) {
    return Status::Unavailable("cannot stat " + path);
  }
  const std::uint64_t total = st->size;
  Result<std::string> head = ReadAt(
      fd->get(), 0, static_cast<std::size_t>(std::min<std::uint64_t>(total, kHeadBytes)), path);
  const std::size_t tail_size =
      static_cast<std::size_t>(std::min<std::uint64_t>(total, kTailBytes));
  Result<std::string> tail = ReadAt(fd->get(), total - tail_size, tail_size, path);
  if (!head.ok() || !tail.ok()) {
    return head.ok() ? tail.status() : head.status();
  }
  return ParseMultipartRelated(content_type, *head, *tail, total);
}

Status CopyFileRange(const std::string& source, std::uint64_t offset, std::uint64_t length,
                     const std::string& target) {
  int error = 0;
  Result<os::UniqueFd> in = os::OpenForReading(source, &error);
  if (!in.ok()) {
    return Status::Unavailable(fmt::format("cannot read {}: {}", source, Errno(error)));
  }
  Result<os::UniqueFd> out = os::CreateNewFile(target, 0644, &error);
  if (!out.ok()) {
    return Status::Unavailable(fmt::format("cannot create {}: {}", target, Errno(error)));
  }
  while (length > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(length, kCopyChunk));
    Result<std::string> chunk = ReadAt(in->get(), offset, want, source);
    if (!chunk.ok()) {
      return chunk.status();
    }
    if (const int written = os::WriteFully(out->get(), *chunk); written != 0) {
      return Status::Unavailable(fmt::format("cannot write {}: {}", target, Errno(written)));
    }
    offset += want;
    length -= want;
  }
  return {};
}

}  // namespace trainyard::server
