#include "collision/distance/segment_closest.h"

#include <algorithm>

namespace impetus {

Vec3 closest_point_on_segment(const Vec3& x, const Vec3& a, const Vec3& b, double* t) {
  Vec3 d = b - a;
  double dd = d.squaredNorm();
  double s = dd > 0 ? std::clamp((x - a).dot(d) / dd, 0.0, 1.0) : 0.0;
  if (t != nullptr) *t = s;
  return a + s * d;
}

SegmentClosest closest_segment_segment(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                       const Vec3& q1) {
  // Minimise ‖p0 + s d1 − q0 − t d2‖² over the unit square: the unconstrained s for the
  // infinite lines, clamped, then t for that s, clamped, then s recomputed for a clamped t.
  // The degenerate tests are written !(x > 0) so that NaN input takes the point branches.
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  double s = 0, t = 0;
  if (!(a > 0) && !(e > 0)) {
    s = t = 0;
  } else if (!(a > 0)) {
    s = 0;
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (!(e > 0)) {
      t = 0;
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2);
      const double denom = a * e - b * b;  // = ‖d1 × d2‖² ≥ 0; ~0 for parallel segments
      // Parallel: every s gives the line distance; s = 0 and the clamps below fix the rest.
      s = denom > 1e-14 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  SegmentClosest out;
  out.s = s;
  out.t = t;
  out.p = p0 + s * d1;
  out.q = q0 + t * d2;
  out.distance = (out.p - out.q).norm();
  if (!(a > 0) || !(e > 0)) return out;
  // Nearly parallel segments: s = 0 above is a minimiser only for exactly parallel ones (the
  // division by a tiny denom is what it avoids). The minimum of two segments whose closest
  // pair is not interior to both is attained at an endpoint of one of them, so the four
  // endpoint projections (kept only when strictly closer) give it; an interior pair (nearly
  // parallel crossing) is then missed by at most ‖d‖·sin(angle).
  const double cross2 = d1.cross(d2).squaredNorm();
  if (cross2 <= 1e-12 * a * e) {
    const Vec3* ends[4] = {&p0, &p1, &q0, &q1};
    for (int k = 0; k < 4; ++k) {
      double ss, tt;
      if (k < 2) {
        ss = k == 0 ? 0.0 : 1.0;
        closest_point_on_segment(*ends[k], q0, q1, &tt);
      } else {
        tt = k == 2 ? 0.0 : 1.0;
        closest_point_on_segment(*ends[k], p0, p1, &ss);
      }
      const Vec3 pp = p0 + ss * d1, qq = q0 + tt * d2;
      const double d = (pp - qq).norm();
      if (d < out.distance) {
        out.distance = d;
        out.s = ss;
        out.t = tt;
        out.p = pp;
        out.q = qq;
      }
    }
  }
  return out;
}

}  // namespace impetus
