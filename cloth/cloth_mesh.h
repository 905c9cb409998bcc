#pragma once
// Cloth surface topology: a rectangular grid triangulated into quads of two triangles, or a
// given triangle mesh. Vertices of a grid are numbered row by row (scene-format.md).
#include <array>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

struct ClothMesh {
  std::vector<Vec3> vertices;                 // world frame at t = 0
  std::vector<std::array<int, 3>> triangles;  // CCW seen along +normal of the grid's local z
};

/// Grid of size[0] × size[1] metres in its local x–y plane, resolution[0] × resolution[1] quads,
/// centred at `center`, rotated by `orientation`. Vertex (i, j) — i along x, j along y — has index
/// j·(resolution[0]+1) + i. Each quad is split along alternating diagonals so the fabric has no
/// preferred shear direction.
ClothMesh make_grid_cloth(const std::array<double, 2>& size, const std::array<int, 2>& resolution,
                          const Vec3& center, const Quat& orientation);

}  // namespace impetus
