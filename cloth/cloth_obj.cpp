#include "cloth/cloth_obj.h"

#include <cstdio>
#include <fstream>

namespace impetus {

void write_cloth_obj(std::ostream& out, const std::vector<Vec3>& vertices,
                     const std::vector<std::array<int, 3>>& triangles) {
  char line[128];
  for (const Vec3& v : vertices) {
    std::snprintf(line, sizeof line, "v %.17g %.17g %.17g\n", v.x(), v.y(), v.z());
    out << line;
  }
  for (const auto& t : triangles) {
    std::snprintf(line, sizeof line, "f %d %d %d\n", t[0] + 1, t[1] + 1, t[2] + 1);
    out << line;
  }
}

bool write_cloth_obj_file(const std::string& path, const std::vector<Vec3>& vertices,
                          const std::vector<std::array<int, 3>>& triangles, std::string* error) {
  std::ofstream file(path, std::ios::binary);
  if (!file) {
    if (error) *error = path + ": cannot open for writing";
    return false;
  }
  write_cloth_obj(file, vertices, triangles);
  file.flush();
  if (!file) {
    if (error) *error = path + ": write failed";
    return false;
  }
  return true;
}

}  // namespace impetus
