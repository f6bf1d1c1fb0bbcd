// A file's bytes mapped read-only into memory, for the largest inputs (a torch.profiler trace
// of up to 1 GiB). Its pages are the file's own: unlike a copy read into a string, they need
// no memory of the process's own, and a reader that goes through the text once hands back
// what it has read (Release), so the whole text is never held at one time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace streamlab {

class MappedFile {
 public:
  // Throws InputError as ReadTextFile does: a folder, a file that cannot be opened, one larger
  // than `max_bytes`.
  MappedFile(const std::string& path, uint64_t max_bytes);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view text() const { return {data_, size_}; }
  // Drops the pages wholly before byte `end` from memory (those not dropped already since the
  // last ReleaseAll); reading them again reads the file.
  void Release(size_t end);
  // Drops every page: for a reader that went through the whole text and will read it again.
  void ReleaseAll();

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
};

}  // namespace streamlab
