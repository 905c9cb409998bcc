#include "cloth/normal_cone.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace impetus {
namespace {

NormalCone full_cone() { return NormalCone{Vec3::UnitZ(), kPi}; }

NormalCone clamp_cone(const Vec3& axis, double angle) {
  if (!(angle < kPi)) return full_cone();
  return NormalCone{axis, angle};
}

}  // namespace

double angle_between(const Vec3& a, const Vec3& b) {
  return std::atan2(a.cross(b).norm(), a.dot(b));
}

NormalCone cone_of_direction(const Vec3& n) {
  const double len = n.norm();
  if (!(len > 0) || !std::isfinite(len)) return full_cone();
  return NormalCone{n / len, 0.0};
}

NormalCone merge_provot(const NormalCone& c1, const NormalCone& c2) {
  if (c1.full() || c2.full()) return full_cone();
  const double beta = angle_between(c1.axis, c2.axis);
  Vec3 sum = c1.axis + c2.axis;
  const double len = sum.norm();
  // Antipodal axes: any axis orthogonal to x1 is at β/2 = π/2 from both.
  Vec3 axis = len > 1e-12 ? Vec3(sum / len) : any_orthogonal(c1.axis);
  return clamp_cone(axis, 0.5 * beta + std::max(c1.angle, c2.angle) + kConePad);
}

NormalCone merge_tight(const NormalCone& c1, const NormalCone& c2) {
  if (c1.full() || c2.full()) return full_cone();
  const double beta = angle_between(c1.axis, c2.axis);
  const double alpha = 0.5 * (beta + c1.angle + c2.angle);
  const double weight_left = alpha - c1.angle;   // angle of the new axis from x1
  const double weight_right = alpha - c2.angle;  // ... and from x2
  if (weight_left <= 0) return c1;  // c2 inside c1 (Alg. 1, lines 6–8)
  if (weight_right <= 0) return c2;
  if (!(alpha < kPi)) return full_cone();
  // Alg. 1, line 13: x = sin(w_r)·x1 + sin(w_l)·x2 normalised, i.e. the point of the great
  // arc x1 → x2 at angle w_l from x1. Written as cos(w_l)·x1 + sin(w_l)·p with p the unit
  // direction of x2 orthogonal to x1, which stays defined when x1 and x2 are antipodal.
  Vec3 p = c2.axis - c2.axis.dot(c1.axis) * c1.axis;
  const double plen = p.norm();
  if (plen > 1e-8) {
    p /= plen;
    p -= p.dot(c1.axis) * c1.axis;  // re-orthogonalise against round-off
    p.normalize();
  } else {
    p = any_orthogonal(c1.axis);  // (anti)parallel axes: any great circle through x1 will do
  }
  Vec3 axis = std::cos(weight_left) * c1.axis + std::sin(weight_left) * p;
  axis.normalize();
  // With a well-conditioned p the axis is w_l from x1 and w_r from x2 to within ~1e-16/plen
  // rad, which the pad covers; otherwise (nearly parallel or antipodal axes) certify the
  // containment around the computed axis.
  double angle = alpha;
  if (plen < 1e-4) {
    angle = std::max({alpha, angle_between(axis, c1.axis) + c1.angle,
                      angle_between(axis, c2.axis) + c2.angle});
  }
  return clamp_cone(axis, angle + kConePad);
}

NormalCone minimum_cone(std::span<const Vec3> vectors) {
  constexpr int kMax = 16;
  const int n = static_cast<int>(vectors.size());
  if (n == 0 || n > kMax) return full_cone();
  std::array<Vec3, kMax> u;
  u.fill(Vec3::Zero());
  for (int i = 0; i < n; ++i) {
    const double len = vectors[i].norm();
    if (!(len > 0) || !std::isfinite(len)) return full_cone();
    u[i] = vectors[i] / len;
  }
  // Candidates are compared by their smallest cosine (cheap); the chosen axis's angle is then
  // measured exactly with atan2.
  auto min_cos_about = [&](const Vec3& axis) {
    double c = 1;
    for (int k = 0; k < n; ++k) c = std::min(c, axis.dot(u[k]));
    return c;
  };
  if (n == 1) return NormalCone{u[0], kConePad};
  Vec3 best_axis = u[0];
  double best = min_cos_about(u[0]);
  auto consider = [&](const Vec3& axis) {
    const double c = min_cos_about(axis);
    if (c > best) {
      best = c;
      best_axis = axis;
    }
  };
  // Fast path: every enclosing cap contains the two most separated directions, so when the
  // cap on that pair (axis at their arc midpoint) holds all the others it is the optimum. For a
  // triangle's normal path this is the usual case (the ends n0, n1 are farthest apart).
  int fi = 0, fj = 1;
  double far_dot = 2;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      const double d = u[i].dot(u[j]);
      if (d < far_dot) {
        far_dot = d;
        fi = i;
        fj = j;
      }
    }
  }
  {
    Vec3 m = u[fi] + u[fj];
    const double len = m.norm();
    if (len > 1e-12) {
      m /= len;
      const double cap = m.dot(u[fi]);
      if (min_cos_about(m) >= cap - 1e-15) {
        // The cap's radius is half the pair's angle; a direction clearly inside (cosine above
        // the cap's by a margin far beyond round-off) needs no exact angle of its own.
        double radius = std::max(angle_between(m, u[fi]), angle_between(m, u[fj]));
        for (int k = 0; k < n; ++k) {
          if (k == fi || k == fj || m.dot(u[k]) > cap + 1e-12) continue;
          radius = std::max(radius, angle_between(m, u[k]));
        }
        return clamp_cone(m, radius + kConePad);
      }
    }
  }
  // Caps with two points on the boundary: axis at the arc midpoint.
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      Vec3 m = u[i] + u[j];
      const double len = m.norm();
      if (len > 1e-12) consider(m / len);
    }
  }
  // Caps with three points on the boundary: the axis is the normal of the plane through them
  // (equidistant in angle), on the side of the points.
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      for (int k = j + 1; k < n; ++k) {
        Vec3 a = (u[j] - u[i]).cross(u[k] - u[i]);
        const double len = a.norm();
        if (!(len > 1e-14)) continue;
        a /= len;
        if (a.dot(u[i]) < 0) a = -a;
        consider(a);
      }
    }
  }
  double radius = 0;
  for (int k = 0; k < n; ++k) radius = std::max(radius, angle_between(best_axis, u[k]));
  // Beyond a hemisphere the candidates still give a valid (not necessarily minimal) cone.
  return clamp_cone(best_axis, radius + kConePad);
}

// The path n_t is a convex combination of the control points (Bézier convex hull property),
// and a cone contains every convex combination of its vectors only while it is convex, i.e.
// narrower than a hemisphere; wider control-point cones say nothing about the path.
NormalCone convex_or_full(const NormalCone& c) {
  return c.angle < 0.5 * kPi ? c : NormalCone{c.axis, kPi};
}

NormalCone continuous_cone_tang3(const Vec3& n0, const Vec3& n1, const Vec3& delta) {
  const Vec3 mid = 0.5 * (n0 + n1 - delta);
  return convex_or_full(merge_provot(merge_provot(cone_of_direction(n0), cone_of_direction(n1)),
                                     cone_of_direction(mid)));
}

NormalCone continuous_cone_5pt(const Vec3& n0, const Vec3& n1, const Vec3& delta) {
  const std::array<Vec3, 5> points = {n0, 0.25 * (3.0 * n0 + n1 - delta),
                                      0.25 * (2.0 * n0 + 2.0 * n1 - delta),
                                      0.25 * (n0 + 3.0 * n1 - delta), n1};
  return convex_or_full(minimum_cone(points));
}

}  // namespace impetus
