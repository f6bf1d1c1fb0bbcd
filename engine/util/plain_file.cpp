// See plain_file.h. gzip through zlib, xz through liblzma, each where the build found it.
#include "engine/util/plain_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "engine/util/errors.h"

#ifdef STREAMLAB_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef STREAMLAB_HAVE_LZMA
#include <lzma.h>
#endif

namespace streamlab {
namespace {

constexpr size_t kChunk = 1 << 20;

// Writes decompressed bytes to the copy, refusing more than `max_bytes` (a decompression bomb
// or a file far larger than any reader takes) and stopping after `stop_after` (0: never).
class Sink {
 public:
  Sink(int fd, const std::string& path, uint64_t max_bytes, uint64_t stop_after)
      : fd_(fd), path_(path), max_(max_bytes), stop_(stop_after) {}
  // False when enough was written (stop_after reached).
  bool Write(const unsigned char* data, size_t n) {
    if (stop_ && written_ + n > stop_) n = static_cast<size_t>(stop_ - written_);
    if (written_ + n > max_)
      throw InputError(path_ + ": larger than " + std::to_string(max_ >> 20) + " MiB once decompressed");
    for (size_t done = 0; done < n;) {
      ssize_t w = write(fd_, data + done, n - done);
      if (w <= 0) throw InputError(path_ + ": cannot decompress it: no room for its plain copy in the temporary folder");
      done += static_cast<size_t>(w);
    }
    written_ += n;
    return !(stop_ && written_ >= stop_);
  }

 private:
  int fd_;
  const std::string& path_;
  uint64_t max_, stop_, written_ = 0;
};

void Gunzip(const std::string& path, Sink& sink) {
#ifdef STREAMLAB_HAVE_ZLIB
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) throw InputError(path + ": cannot open file");
  std::vector<unsigned char> buffer(kChunk);
  for (;;) {
    int n = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (n < 0) {
      int code = 0;
      std::string what = gzerror(in, &code);
      gzclose(in);
      throw InputError(path + ": corrupt gzip data (" + what + ")");
    }
    if (n == 0) break;
    bool more = false;
    try {
      more = sink.Write(buffer.data(), static_cast<size_t>(n));
    } catch (...) {
      gzclose(in);
      throw;
    }
    if (!more) break;
  }
  gzclose(in);
#else
  (void)sink;
  throw InputError(path + ": a gzip file, and this build of StreamLab reads none (built without zlib): gunzip it first");
#endif
}

void Unxz(const std::string& path, Sink& sink) {
#ifdef STREAMLAB_HAVE_LZMA
  FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) throw InputError(path + ": cannot open file");
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
    std::fclose(in);
    throw InputError(path + ": cannot start an xz decoder");
  }
  std::vector<unsigned char> input(kChunk), output(kChunk);
  lzma_action action = LZMA_RUN;
  lzma_ret status = LZMA_OK;
  bool more = true;
  try {
    while (more && status != LZMA_STREAM_END) {
      if (stream.avail_in == 0 && action == LZMA_RUN) {
        stream.next_in = input.data();
        stream.avail_in = std::fread(input.data(), 1, input.size(), in);
        if (std::feof(in)) action = LZMA_FINISH;
      }
      stream.next_out = output.data();
      stream.avail_out = output.size();
      status = lzma_code(&stream, action);
      if (status != LZMA_OK && status != LZMA_STREAM_END)
        throw InputError(path + ": corrupt xz data (liblzma error " + std::to_string(static_cast<int>(status)) + ")");
      more = sink.Write(output.data(), output.size() - stream.avail_out);
    }
  } catch (...) {
    lzma_end(&stream);
    std::fclose(in);
    throw;
  }
  lzma_end(&stream);
  std::fclose(in);
#else
  (void)sink;
  throw InputError(path + ": an xz file, and this build of StreamLab reads none (built without liblzma): xz -d it first");
#endif
}

}  // namespace

Compression CompressionOf(const std::string& path) {
  std::array<unsigned char, 6> magic{};
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Compression::kNone;
  size_t n = std::fread(magic.data(), 1, magic.size(), f);
  std::fclose(f);
  if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) return Compression::kGzip;
  static constexpr std::array<unsigned char, 6> kXzMagic{0xfd, '7', 'z', 'X', 'Z', 0x00};
  if (n == 6 && magic == kXzMagic) return Compression::kXz;
  return Compression::kNone;
}

bool IsJsonFileName(const std::string& path) {
  for (const char* suffix : {".json", ".json.gz", ".json.xz"})
    if (path.ends_with(suffix)) return true;
  return false;
}

PlainFile::PlainFile(const std::string& path, uint64_t max_bytes, uint64_t stop_after) : path_(path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": is a folder, not a file");
  Compression kind = CompressionOf(path);
  if (kind == Compression::kNone) return;
  std::string name = (std::filesystem::temp_directory_path(ec) / "streamlab-plain-XXXXXX").string();
  fd_ = mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) throw InputError(path + ": cannot decompress it: no temporary file (" + name + ")");
  unlink(name.c_str());  // gone when the last descriptor is closed, whatever happens
  try {
    Sink sink(fd_, path, max_bytes, stop_after);
    if (kind == Compression::kGzip) Gunzip(path, sink);
    else Unxz(path, sink);
  } catch (...) {
    close(fd_);
    throw;
  }
  path_ = "/proc/self/fd/" + std::to_string(fd_);
}

PlainFile::~PlainFile() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace streamlab
