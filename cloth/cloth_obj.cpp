#include "cloth/cloth_obj.h"

#include <cstdio>

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

}  // namespace impetus
