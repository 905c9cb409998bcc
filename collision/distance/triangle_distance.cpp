#include "collision/distance/triangle_distance.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/distance/segment_closest.h"

namespace impetus {
namespace {

// Point where segment pq crosses the plane of triangle t strictly inside or on t, if it does.
// Segments lying in the plane are left to the edge and vertex tests (they then give 0).
bool segment_pierces(const Vec3& p, const Vec3& q, const Triangle& t, const Vec3& n, Vec3* x) {
  const double dp = n.dot(p - t[0]);
  const double dq = n.dot(q - t[0]);
  if ((dp > 0 && dq > 0) || (dp < 0 && dq < 0) || dp == dq) return false;
  const Vec3 hit = p + (dp / (dp - dq)) * (q - p);
  // Inside when on the inner side of all three edges (edge functions along n).
  for (int i = 0; i < 3; ++i) {
    const Vec3& u = t[i];
    const Vec3& v = t[(i + 1) % 3];
    if (n.dot((v - u).cross(hit - u)) < 0) return false;
  }
  *x = hit;
  return true;
}

// Keeps the closer of the current best pair and (pa, pb).
void offer(TriangleDistance* best, double* best_sq, const Vec3& pa, const Vec3& pb) {
  const double d2 = (pb - pa).squaredNorm();
  if (d2 < *best_sq) {
    *best_sq = d2;
    best->point_a = pa;
    best->point_b = pb;
  }
}

// Vertex x against the face of t (normal n, |n| > 0): the foot of the perpendicular when it
// falls inside t; otherwise an edge–edge pair is at least as close.
void vertex_face(const Vec3& x, const Triangle& t, const Vec3& n, bool x_on_a,
                 TriangleDistance* best, double* best_sq) {
  const double nn = n.squaredNorm();
  const Vec3 foot = x - (n.dot(x - t[0]) / nn) * n;
  for (int i = 0; i < 3; ++i) {
    const Vec3& u = t[i];
    const Vec3& v = t[(i + 1) % 3];
    if (n.dot((v - u).cross(foot - u)) < 0) return;
  }
  if (x_on_a) {
    offer(best, best_sq, x, foot);
  } else {
    offer(best, best_sq, foot, x);
  }
}

}  // namespace

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

TriangleDistance triangle_distance(const Triangle& a, const Triangle& b) {
  TriangleDistance out;
  const Vec3 na = (a[1] - a[0]).cross(a[2] - a[0]);
  const Vec3 nb = (b[1] - b[0]).cross(b[2] - b[0]);
  const bool face_a = na.squaredNorm() > 0;
  const bool face_b = nb.squaredNorm() > 0;

  // Crossing: an edge of one triangle pierces the other (non-coplanar case).
  for (int i = 0; i < 3; ++i) {
    Vec3 x;
    if ((face_b && segment_pierces(a[i], a[(i + 1) % 3], b, nb, &x)) ||
        (face_a && segment_pierces(b[i], b[(i + 1) % 3], a, na, &x))) {
      out.distance = 0;
      out.point_a = out.point_b = x;
      out.crossing = true;
      return out;
    }
  }

  double best_sq = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      SegmentClosest c = closest_segment_segment(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]);
      offer(&out, &best_sq, c.p, c.q);
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (face_b) vertex_face(a[i], b, nb, true, &out, &best_sq);
    if (face_a) vertex_face(b[i], a, na, false, &out, &best_sq);
  }
  out.distance = std::sqrt(best_sq);
  return out;
}

}  // namespace impetus
