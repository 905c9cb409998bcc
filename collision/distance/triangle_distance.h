#pragma once
// Closed-form distances of triangles: to a point (with the barycentric weights of the closest
// point, which the cloth's impulse response needs) and to another triangle (Ericson, Real-Time
// Collision Detection §5.1.9 for the idea): when they are disjoint, a closest pair is either a
// vertex of one with its projection inside the other (6 vertex–face tests) or a pair of edges
// (9 segment–segment distances). Crossing triangles are recognised by an edge of one piercing
// the other.
#include <array>

#include "collision/base/math.h"

namespace impetus {

using Triangle = std::array<Vec3, 3>;

struct PointTriangleClosest {
  double distance = 0;
  Vec3 weights = Vec3::Zero();  // closest point = w0·a + w1·b + w2·c, w ≥ 0, Σw = 1
  Vec3 point = Vec3::Zero();
};

/// Closest point of the closed triangle (a, b, c) to p (Voronoi-region walk; a degenerate,
/// sliver or point, triangle gives the closest point of its three edges).
PointTriangleClosest closest_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b,
                                            const Vec3& c);

struct TriangleDistance {
  double distance = 0;          // ≥ 0; 0 when the triangles touch or cross [m]
  Vec3 point_a = Vec3::Zero();  // closest point on a
  Vec3 point_b = Vec3::Zero();  // closest point on b (equal to point_a when crossing)
  bool crossing = false;        // an edge of one triangle pierces the other (distance 0)
};

/// Unsigned distance and closest points of triangles a and b (degenerate ones allowed: they
/// act as their edges).
TriangleDistance triangle_distance(const Triangle& a, const Triangle& b);

}  // namespace impetus
