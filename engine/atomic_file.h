#pragma once
// Output files that a reader never sees half-written: the bytes go to `PATH.tmp` in the same
// folder, and only a complete, flushed and synced file is renamed to PATH (rename is atomic
// within a file system). A failed write (full disk, unwritable folder) leaves no PATH and no
// temporary behind and reports one line: "PATH: cannot write: No space left on device".
// Every file `impetus run` writes goes through here (engine/scene_runner.cpp).
#include <string>
#include <string_view>

namespace impetus {

/// A file being written under a temporary name. Destroying it without commit() removes the
/// temporary, so an error path never leaves debris.
class AtomicFile {
 public:
  AtomicFile() = default;
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Creates (or truncates) PATH.tmp; false with `error` set when it cannot.
  bool open(const std::string& path, std::string* error);
  bool is_open() const { return fd_ >= 0; }
  /// Appends `data` (buffered). After a failed write, further writes are ignored and commit()
  /// reports the first error.
  void write(std::string_view data);
  /// Flushes, syncs, closes and renames to PATH; false with `error` set (and the temporary
  /// removed) on any failure.
  bool commit(std::string* error);
  /// Closes and removes the temporary (no-op when nothing is open).
  void discard();
  const std::string& path() const { return path_; }

 private:
  bool flush_buffer();
  int fd_ = -1;
  std::string path_;
  std::string tmp_path_;
  std::string buffer_;
  std::string error_;  // first failure, "" while all is well
};

/// Writes `text` to `path` through AtomicFile; false with `error` set on failure.
bool write_file_atomically(const std::string& path, std::string_view text, std::string* error);

}  // namespace impetus
