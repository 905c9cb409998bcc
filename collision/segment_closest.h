#pragma once
// Closest points between segments and between a point and a segment (capsule cores).
#include "collision/base/math.h"

namespace impetus {

struct SegmentClosest {
  double s = 0;              // parameter on p0 → p1, in [0, 1]
  double t = 0;              // parameter on q0 → q1, in [0, 1]
  Vec3 p = Vec3::Zero();     // p0 + s (p1 − p0)
  Vec3 q = Vec3::Zero();     // q0 + t (q1 − q0)
};

/// Closest points of segments p0p1 and q0q1 (either may be a point). For parallel segments the
/// pair with s = 0 clamped onto the other segment is returned (one of the minimisers).
SegmentClosest closest_segment_segment(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                       const Vec3& q1);

/// Point of segment ab closest to x; writes its parameter in [0, 1] to *t when given.
Vec3 closest_point_on_segment(const Vec3& x, const Vec3& a, const Vec3& b, double* t = nullptr);

}  // namespace impetus
