#include "engine/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace impetus {

namespace {

// Writes are gathered into blocks of this size: a trajectory frame is a few hundred bytes.
constexpr std::size_t kBufferBytes = 1 << 16;

std::string errno_text(int error_number) { return std::strerror(error_number); }

}  // namespace

AtomicFile::~AtomicFile() { discard(); }

bool AtomicFile::open(const std::string& path, std::string* error) {
  discard();
  path_ = path;
  tmp_path_ = path + ".tmp";
  error_.clear();
  buffer_.clear();
  fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    *error = path_ + ": cannot write: " + errno_text(errno);
    return false;
  }
  buffer_.reserve(kBufferBytes);
  return true;
}

bool AtomicFile::flush_buffer() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;  // a signal (SIGINT asking to stop) is not an error
    if (n <= 0) {
      error_ = path_ + ": cannot write: " + errno_text(n < 0 ? errno : ENOSPC);
      buffer_.clear();
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
  return true;
}

void AtomicFile::write(std::string_view data) {
  if (fd_ < 0 || !error_.empty()) return;
  if (buffer_.size() + data.size() > kBufferBytes && !flush_buffer()) return;
  if (data.size() >= kBufferBytes) {
    buffer_.assign(data);
    flush_buffer();
    return;
  }
  buffer_.append(data);
}

bool AtomicFile::commit(std::string* error) {
  if (fd_ < 0) {
    *error = path_ + ": cannot write: not open";
    return false;
  }
  if (error_.empty()) flush_buffer();
  // fsync before rename: after a crash the final name holds the whole file or is absent.
  if (error_.empty() && ::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) {
    // (EINVAL/EROFS: special files such as /dev/null cannot be synced; nothing is lost.)
    error_ = path_ + ": cannot write: " + errno_text(errno);
  }
  if (::close(fd_) != 0 && error_.empty() && errno != EINTR) {
    error_ = path_ + ": cannot write: " + errno_text(errno);
  }
  fd_ = -1;
  if (error_.empty() && std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    error_ = path_ + ": cannot rename from " + tmp_path_ + ": " + errno_text(errno);
  }
  if (!error_.empty()) {
    std::remove(tmp_path_.c_str());
    *error = error_;
    return false;
  }
  return true;
}

void AtomicFile::discard() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  std::remove(tmp_path_.c_str());
}

bool write_file_atomically(const std::string& path, std::string_view text, std::string* error) {
  AtomicFile file;
  if (!file.open(path, error)) return false;
  file.write(text);
  return file.commit(error);
}

}  // namespace impetus
