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
// Files are written by engine/scene_runner.cpp through engine/atomic_file.h.

}  // namespace impetus
