#pragma once
// Closest points between segments and between a point and a segment: capsule cores, box edges,
// triangle edges and the cloth's edge–edge proximity all use these two routines.
#include "collision/base/math.h"

namespace impetus {

struct SegmentClosest {
  double s = 0;              // parameter on p0 → p1, in [0, 1]
  double t = 0;              // parameter on q0 → q1, in [0, 1]
  Vec3 p = Vec3::Zero();     // p0 + s (p1 − p0)
  Vec3 q = Vec3::Zero();     // q0 + t (q1 − q0)
  double distance = 0;       // |p − q|
};

/// Closest points of the closed segments p0p1 and q0q1. Either or both may be a point, and
/// parallel segments, overlapping or not, get a minimising pair, so `distance` is the minimum
/// up to round-off. The one exception: segments within ~1e-7 rad of parallel that cross are
/// given a pair at most ~1e-7 × (the longer length) farther apart than the minimum.
SegmentClosest closest_segment_segment(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                       const Vec3& q1);

/// Point of segment ab closest to x; writes its parameter in [0, 1] to *t when given (0 when
/// a == b).
Vec3 closest_point_on_segment(const Vec3& x, const Vec3& a, const Vec3& b, double* t = nullptr);

}  // namespace impetus
