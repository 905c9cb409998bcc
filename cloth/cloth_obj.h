#pragma once
// Wavefront OBJ of one cloth frame (spec/output-format.md): the vertices in the cloth's own
// order, one `v` line each, then the triangles as 1-based `f` lines.
#include <array>
#include <ostream>
#include <string>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

/// Writes the frame to `out`; doubles in shortest round-trip form (%.17g).
void write_cloth_obj(std::ostream& out, const std::vector<Vec3>& vertices,
                     const std::vector<std::array<int, 3>>& triangles);

/// Writes the frame to `path`; false (and `error` set) when the file cannot be written.
bool write_cloth_obj_file(const std::string& path, const std::vector<Vec3>& vertices,
                          const std::vector<std::array<int, 3>>& triangles, std::string* error = nullptr);

}  // namespace impetus
