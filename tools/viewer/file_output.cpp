#include "tools/viewer/file_output.h"

#include "engine/atomic_file.h"

#include <fstream>
#include <sstream>

namespace impetus::viewer {

bool write_text_file(const std::filesystem::path& path, std::string_view bytes, std::string* error) {
  // Through a temporary and a rename, as every output of a run (engine/atomic_file.h): a reader
  // never sees half a page.
  return write_file_atomically(path.string(), bytes, error);
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
