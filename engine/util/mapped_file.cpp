// See mapped_file.h.
#include "engine/util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "engine/util/errors.h"
#include "engine/util/plain_file.h"

namespace streamlab {

MappedFile::MappedFile(const std::string& path, uint64_t max_bytes) {
  PlainFile plain(path, max_bytes);  // a folder, a compressed file: said or decompressed here
  int fd = open(plain.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path + ": cannot open file");
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size < 0) {
    close(fd);
    throw InputError(path + ": cannot read file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    close(fd);
    throw InputError(path + ": file larger than " + std::to_string(max_bytes >> 20) + " MiB");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* mapped = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      close(fd);
      throw InputError(path + ": cannot read file");
    }
    data_ = static_cast<const char*>(mapped);
    madvise(mapped, size_, MADV_SEQUENTIAL);  // read ahead: the readers go front to back
  }
  close(fd);  // the mapping keeps the file
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(other.data_), size_(other.size_), released_(other.released_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile::~MappedFile() {
  if (data_) munmap(const_cast<char*>(data_), size_);
}

void MappedFile::Release(size_t end) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  end = std::min(end, size_) / page * page;
  if (!data_ || end <= released_) return;
  // A private read-only mapping never holds changed pages: dropping them loses nothing.
  madvise(const_cast<char*>(data_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

void MappedFile::ReleaseAll() {
  if (data_) madvise(const_cast<char*>(data_), size_, MADV_DONTNEED);
  released_ = 0;
}

}  // namespace streamlab
