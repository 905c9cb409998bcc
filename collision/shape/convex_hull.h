#pragma once
// Convex polyhedron: the hull of a point set, with the topology needed by SAT/clipping,
// support mapping, mass properties and (later) the extreme-vertex diagram of paper 3.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

struct HullFace {
  Vec3 normal;               // outward unit normal
  double offset = 0;         // normal·x == offset on the face plane
  std::vector<int> vertices; // CCW seen from outside, indices into ConvexHull::vertices
};

struct ConvexHull {
  std::vector<Vec3> vertices;                 // hull vertices only (interior points dropped)
  std::vector<HullFace> faces;                // coplanar triangles merged into polygons
  std::vector<std::array<int, 3>> triangles;  // outward (CCW) triangulation of the faces
  std::vector<std::array<int, 2>> edges;      // unique undirected edges (i < j)

  /// Index of the vertex farthest along `dir` (local frame). Ties break to the lowest index.
  int support_index(const Vec3& dir) const;
  Vec3 support(const Vec3& dir) const { return vertices[support_index(dir)]; }
};

/// Builds the convex hull of `points` (quickhull, exact enough for doubles with a tolerance
/// relative to the point cloud's size). Returns nullopt and sets `error` when the points are
/// fewer than 4 or (nearly) coplanar, i.e. have no volume.
std::optional<ConvexHull> build_convex_hull(const std::vector<Vec3>& points, std::string* error);

/// The hull of a box with the given half extents (exact, for tests and box-as-hull fallbacks).
ConvexHull box_hull(const Vec3& half_extents);

}  // namespace impetus
