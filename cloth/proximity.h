#pragma once
// Closest points between the primitives of cloth collision: point–triangle and
// segment–segment, with the barycentric / segment parameters the impulse response needs.
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

struct SegmentSegmentClosest {
  double distance = 0;
  double s = 0;  // on p0 + s (p1 − p0)
  double t = 0;  // on q0 + t (q1 − q0)
  Vec3 point_p = Vec3::Zero();
  Vec3 point_q = Vec3::Zero();
};

/// Closest points of the closed segments [p0, p1] and [q0, q1] (parallel and degenerate
/// segments handled; the minimum distance is exact up to round-off).
SegmentSegmentClosest segment_segment_closest(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                              const Vec3& q1);

/// Closest point of segment [a, b] to p: the parameter in [0, 1].
double closest_segment_parameter(const Vec3& p, const Vec3& a, const Vec3& b);

}  // namespace impetus
