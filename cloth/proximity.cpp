#include "cloth/proximity.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace impetus {

double closest_segment_parameter(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double len2 = ab.squaredNorm();
  if (!(len2 > 0)) return 0.0;
  return std::clamp((p - a).dot(ab) / len2, 0.0, 1.0);
}

PointTriangleClosest closest_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b,
                                            const Vec3& c) {
  PointTriangleClosest r;
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const Vec3 n = ab.cross(ac);
  const double scale = std::max({ab.squaredNorm(), ac.squaredNorm(), (c - b).squaredNorm()});
  if (!(n.squaredNorm() > 1e-24 * scale * scale)) {
    // Degenerate (sliver or point) triangle: the closest of its three edges.
    const Vec3* v[3] = {&a, &b, &c};
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 3; ++k) {
      const Vec3& e0 = *v[k];
      const Vec3& e1 = *v[(k + 1) % 3];
      double s = closest_segment_parameter(p, e0, e1);
      Vec3 q = e0 + s * (e1 - e0);
      double d = (p - q).norm();
      if (d < best) {
        best = d;
        r.weights = Vec3::Zero();
        r.weights[k] = 1 - s;
        r.weights[(k + 1) % 3] = s;
        r.point = q;
      }
    }
    r.distance = best;
    return r;
  }
  // Voronoi regions of the vertices, edges and face, in the classic order.
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) {
    r.weights = Vec3(1, 0, 0);
  } else {
    const Vec3 bp = p - b;
    const double d3 = ab.dot(bp), d4 = ac.dot(bp);
    const Vec3 cp = p - c;
    const double d5 = ab.dot(cp), d6 = ac.dot(cp);
    const double vc = d1 * d4 - d3 * d2;
    const double vb = d5 * d2 - d1 * d6;
    const double va = d3 * d6 - d5 * d4;
    if (d3 >= 0 && d4 <= d3) {
      r.weights = Vec3(0, 1, 0);
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
      const double v = d1 / (d1 - d3);
      r.weights = Vec3(1 - v, v, 0);
    } else if (d6 >= 0 && d5 <= d6) {
      r.weights = Vec3(0, 0, 1);
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
      const double w = d2 / (d2 - d6);
      r.weights = Vec3(1 - w, 0, w);
    } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
      const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
      r.weights = Vec3(0, 1 - w, w);
    } else {
      const double denom = 1.0 / (va + vb + vc);
      const double v = vb * denom, w = vc * denom;
      r.weights = Vec3(1 - v - w, v, w);
    }
  }
  r.point = r.weights[0] * a + r.weights[1] * b + r.weights[2] * c;
  r.distance = (p - r.point).norm();
  return r;
}

SegmentSegmentClosest segment_segment_closest(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                              const Vec3& q1) {
  SegmentSegmentClosest r;
  const Vec3 d1 = p1 - p0, d2 = q1 - q0, w = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(w);
  double s = 0, t = 0;
  if (!(a > 0) && !(e > 0)) {
    s = t = 0;
  } else if (!(a > 0)) {
    s = 0;
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(w);
    if (!(e > 0)) {
      t = 0;
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2);
      const double denom = a * e - b * b;  // ≥ 0; ~0 for parallel segments
      if (denom > 1e-14 * a * e) {
        s = std::clamp((b * f - c * e) / denom, 0.0, 1.0);
      } else {
        s = 0;  // parallel: any s works for the line distance; the clamps below fix the rest
      }
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
  r.s = s;
  r.t = t;
  r.point_p = p0 + s * d1;
  r.point_q = q0 + t * d2;
  r.distance = (r.point_p - r.point_q).norm();
  // Parallel overlapping segments: the clamped walk above can land on a non-minimal pair;
  // endpoint projections cover every case where the minimum is attained at an endpoint.
  if (!(a > 0) || !(e > 0)) return r;
  const double cross2 = d1.cross(d2).squaredNorm();
  if (cross2 <= 1e-12 * a * e) {
    const Vec3* ends[4] = {&p0, &p1, &q0, &q1};
    for (int k = 0; k < 4; ++k) {
      double ss, tt;
      if (k < 2) {
        ss = k == 0 ? 0.0 : 1.0;
        tt = closest_segment_parameter(*ends[k], q0, q1);
      } else {
        tt = k == 2 ? 0.0 : 1.0;
        ss = closest_segment_parameter(*ends[k], p0, p1);
      }
      Vec3 pp = p0 + ss * d1, qq = q0 + tt * d2;
      double d = (pp - qq).norm();
      if (d < r.distance) {
        r.distance = d;
        r.s = ss;
        r.t = tt;
        r.point_p = pp;
        r.point_q = qq;
      }
    }
  }
  return r;
}

}  // namespace impetus
