#include "cloth/triangle_intersection.h"

#include <algorithm>
#include <cmath>

#include "collision/base/robust_predicates.h"

namespace impetus {
namespace {

// Exact 2D predicates on the projection that drops coordinate `drop`.
struct Projection {
  int i = 0, j = 1;
  explicit Projection(const Vec3& normal) {
    int drop = 0;
    if (std::abs(normal.y()) > std::abs(normal[drop])) drop = 1;
    if (std::abs(normal.z()) > std::abs(normal[drop])) drop = 2;
    i = (drop + 1) % 3;
    j = (drop + 2) % 3;
  }
  // Sign of (b − a) × (c − a) in the projection plane, exactly: the 2D determinant equals the
  // z component of the lifted 3D cross product, i.e. orient3d with a point lifted above a.
  int orient(const Vec3& a, const Vec3& b, const Vec3& c) const {
    const Vec3 A(a[i], a[j], 0), B(b[i], b[j], 0), C(c[i], c[j], 0), D(a[i], a[j], 1);
    return orient3d_sign(A, B, C, D);
  }
  // p on the closed segment [a, b], given that the three are collinear.
  bool on_segment(const Vec3& p, const Vec3& a, const Vec3& b) const {
    return std::min(a[i], b[i]) <= p[i] && p[i] <= std::max(a[i], b[i]) &&
           std::min(a[j], b[j]) <= p[j] && p[j] <= std::max(a[j], b[j]);
  }
  bool segments_intersect(const Vec3& p1, const Vec3& p2, const Vec3& q1, const Vec3& q2) const {
    const int o1 = orient(p1, p2, q1), o2 = orient(p1, p2, q2);
    const int o3 = orient(q1, q2, p1), o4 = orient(q1, q2, p2);
    if (o1 * o2 < 0 && o3 * o4 < 0) return true;
    if (o1 == 0 && on_segment(q1, p1, p2)) return true;
    if (o2 == 0 && on_segment(q2, p1, p2)) return true;
    if (o3 == 0 && on_segment(p1, q1, q2)) return true;
    if (o4 == 0 && on_segment(p2, q1, q2)) return true;
    return false;
  }
  bool point_in_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) const {
    const int s1 = orient(a, b, p), s2 = orient(b, c, p), s3 = orient(c, a, p);
    const bool has_neg = s1 < 0 || s2 < 0 || s3 < 0;
    const bool has_pos = s1 > 0 || s2 > 0 || s3 > 0;
    return !(has_neg && has_pos);
  }
};

bool coplanar_triangles_intersect(const Vec3* a, const Vec3* b) {
  const Projection proj((a[1] - a[0]).cross(a[2] - a[0]));
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l)
      if (proj.segments_intersect(a[k], a[(k + 1) % 3], b[l], b[(l + 1) % 3])) return true;
  return proj.point_in_triangle(a[0], b[0], b[1], b[2]) ||
         proj.point_in_triangle(b[0], a[0], a[1], a[2]);
}

// Closed segment [p, q] against the closed triangle t, given the exact sides sp, sq of p and q
// with respect to t's plane.
bool segment_meets_triangle(const Vec3& p, const Vec3& q, const Vec3* t, int sp, int sq) {
  if (sp == sq && sp != 0) return false;
  if (sp == 0 && sq == 0) {
    const Projection proj((t[1] - t[0]).cross(t[2] - t[0]));
    for (int l = 0; l < 3; ++l)
      if (proj.segments_intersect(p, q, t[l], t[(l + 1) % 3])) return true;
    return proj.point_in_triangle(p, t[0], t[1], t[2]);
  }
  // The segment reaches the plane in one point; it lies in the closed triangle iff the line pq
  // passes on the same side (or on) each directed edge (signs of the Plücker products).
  const int o1 = orient3d_sign(p, q, t[0], t[1]);
  const int o2 = orient3d_sign(p, q, t[1], t[2]);
  const int o3 = orient3d_sign(p, q, t[2], t[0]);
  return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0);
}

}  // namespace

bool triangles_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                         const Vec3& b1, const Vec3& b2) {
  const Vec3 a[3] = {a0, a1, a2};
  const Vec3 b[3] = {b0, b1, b2};
  int sb[3], sa[3];
  for (int k = 0; k < 3; ++k) sb[k] = orient3d_sign(a0, a1, a2, b[k]);
  if ((sb[0] > 0 && sb[1] > 0 && sb[2] > 0) || (sb[0] < 0 && sb[1] < 0 && sb[2] < 0)) return false;
  for (int k = 0; k < 3; ++k) sa[k] = orient3d_sign(b0, b1, b2, a[k]);
  if ((sa[0] > 0 && sa[1] > 0 && sa[2] > 0) || (sa[0] < 0 && sa[1] < 0 && sa[2] < 0)) return false;
  if (sb[0] == 0 && sb[1] == 0 && sb[2] == 0) return coplanar_triangles_intersect(a, b);
  // Not coplanar: the intersection, if any, is a segment on the planes' common line whose end
  // points lie on edges of one triangle or the other.
  for (int k = 0; k < 3; ++k) {
    if (segment_meets_triangle(a[k], a[(k + 1) % 3], b, sa[k], sa[(k + 1) % 3])) return true;
    if (segment_meets_triangle(b[k], b[(k + 1) % 3], a, sb[k], sb[(k + 1) % 3])) return true;
  }
  return false;
}

int count_self_intersections_brute_force(const std::vector<Vec3>& x,
                                         const std::vector<std::array<int, 3>>& triangles) {
  int count = 0;
  const int n = static_cast<int>(triangles.size());
  for (int s = 0; s < n; ++s) {
    const auto& ts = triangles[s];
    for (int t = s + 1; t < n; ++t) {
      const auto& tt = triangles[t];
      bool shared = false;
      for (int a : ts)
        for (int b : tt) shared = shared || a == b;
      if (shared) continue;
      if (triangles_intersect(x[ts[0]], x[ts[1]], x[ts[2]], x[tt[0]], x[tt[1]], x[tt[2]])) ++count;
    }
  }
  return count;
}

}  // namespace impetus
