#include "collision/segment_closest.h"

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
  Vec3 d1 = p1 - p0;
  Vec3 d2 = q1 - q0;
  Vec3 r = p0 - q0;
  double a = d1.squaredNorm();
  double e = d2.squaredNorm();
  double f = d2.dot(r);
  SegmentClosest out;
  if (a <= 0 && e <= 0) {
    out.s = out.t = 0;
  } else if (a <= 0) {
    out.s = 0;
    out.t = std::clamp(f / e, 0.0, 1.0);
  } else {
    double c = d1.dot(r);
    if (e <= 0) {
      out.t = 0;
      out.s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      double b = d1.dot(d2);
      double denom = a * e - b * b;  // = ‖d1 × d2‖² >= 0
      out.s = denom > 1e-14 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      out.t = (b * out.s + f) / e;
      if (out.t < 0) {
        out.t = 0;
        out.s = std::clamp(-c / a, 0.0, 1.0);
      } else if (out.t > 1) {
        out.t = 1;
        out.s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  out.p = p0 + out.s * d1;
  out.q = q0 + out.t * d2;
  return out;
}

}  // namespace impetus
