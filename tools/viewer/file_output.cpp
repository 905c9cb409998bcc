#include "tools/viewer/file_output.h"

#include <fstream>
#include <sstream>

namespace impetus::viewer {

bool write_text_file(const std::filesystem::path& path, std::string_view bytes, std::string* error) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    *error = path.string() + ": cannot open for writing";
    return false;
  }
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.flush();
  if (!file) {
    *error = path.string() + ": write failed";
    return false;
  }
  return true;
}

bool read_text_file(const std::filesystem::path& path, std::string* bytes, std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *error = path.string() + ": cannot read (missing?)";
    return false;
  }
  std::ostringstream text;
  text << file.rdbuf();
  *bytes = text.str();
  return true;
}

}  // namespace impetus::viewer
