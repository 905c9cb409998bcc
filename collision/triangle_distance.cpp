#include "collision/triangle_distance.h"

#include <cmath>
#include <limits>

#include "collision/segment_closest.h"

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
