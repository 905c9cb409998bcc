#pragma once
// The fuzz targets' committed inputs, for the tests that replay them in every build
// (tests/engine/fuzz_regressions_test.cpp, tests/tools/cli_fuzz_regressions_test.cpp).
#include <algorithm>
#include <filesystem>
#include <vector>

namespace impetus::test {

/// tests/fuzz of the source tree (IMPETUS_SOURCE_DIR).
inline std::filesystem::path fuzz_dir() {
  return std::filesystem::path(IMPETUS_SOURCE_DIR) / "tests" / "fuzz";
}

/// The files of `dir` (none when it does not exist), sorted.
inline std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace impetus::test
