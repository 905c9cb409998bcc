#pragma once
// Closest point of a triangle to a point, with the barycentric weights the cloth's impulse
// response needs (segment–segment: collision/segment_closest.h).
#include "collision/base/math.h"

namespace impetus {

struct PointTriangleClosest {
  double distance = 0;
  Vec3 weights = Vec3::Zero();  // closest point = w0·a + w1·b + w2·c, w ≥ 0, Σw = 1
  Vec3 point = Vec3::Zero();
};

/// Closest point of the closed triangle (a, b, c) to p (Voronoi-region walk; degenerate
/// triangles fall back to their longest edge).
PointTriangleClosest closest_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b,
                                            const Vec3& c);

}  // namespace impetus
