#pragma once
// A fresh directory under the system temp folder for tests that write files; removed on exit.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace impetus::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    namespace fs = std::filesystem;
    // pid + counter: unique across parallel ctest processes and within one process.
    for (int attempt = 0;; ++attempt) {
      fs::path p = fs::temp_directory_path() /
                   ("impetus_test_" + std::to_string(::getpid()) + "_" +
                    std::to_string(counter.fetch_add(1)) + "_" + std::to_string(attempt));
      if (fs::create_directory(p)) {
        path_ = p.string();
        break;
      }
    }
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  /// Writes `text` to `name` (relative to the directory, sub-folders created); returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::path p = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  std::string path_;
};

}  // namespace impetus::testing
