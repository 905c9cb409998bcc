#pragma once
// Small file helpers of the report and glTF writers.
#include <filesystem>
#include <string>
#include <string_view>

namespace impetus::viewer {

/// Writes `bytes` to `path` through a temporary and a rename; false with `error` ("PATH:
/// problem") when the file cannot be written.
bool write_text_file(const std::filesystem::path& path, std::string_view bytes, std::string* error);

/// Reads a whole file; false with `error` ("PATH: cannot read") when it cannot be opened.
bool read_text_file(const std::filesystem::path& path, std::string* bytes, std::string* error);

}  // namespace impetus::viewer
