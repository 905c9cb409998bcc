#pragma once
// Triangulated convex hull by quickhull (Barber, Dobkin & Huhdanpaa 1996) with exact
// visibility tests. This is the first stage of build_convex_hull (convex_hull.h), which then
// merges coplanar triangles into polygonal faces; use that instead unless the raw triangulation
// is what you need.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

/// A closed, outward-oriented triangulation of the hull. Vertices are indices into the input
/// points; `neighbors[t][e]` is the triangle across edge (triangles[t][e], triangles[t][e+1 mod 3]).
struct HullTriangulation {
  std::vector<std::array<int, 3>> triangles;
  std::vector<std::array<int, 3>> neighbors;
};

/// Quickhull over finite points. Visibility uses orient3d_sign (exact), so points exactly on the
/// hull's boundary never become vertices unless picked before the boundary they lie on existed
/// (the face merge removes those). Fails with a message when the points are (within
/// `flat_tolerance`, a length) all coincident, collinear or coplanar.
std::optional<HullTriangulation> quickhull(const std::vector<Vec3>& points, double flat_tolerance,
                                           std::string* error);

}  // namespace impetus
