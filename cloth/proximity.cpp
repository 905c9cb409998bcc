#include "cloth/proximity.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/segment_closest.h"

namespace impetus {

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
      double s = 0;
      const Vec3 q = closest_point_on_segment(p, e0, e1, &s);
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

}  // namespace impetus
