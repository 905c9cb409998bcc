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

// Small angles without libm, for the tight cones' hot paths (one leaf per triangle and one
// merge per node every step, most of them between normals less than 0.05 rad apart). Below
// kSmallAngle the truncated series are exact to far below the cones' pad (kConePad = 1e-12):
//   asin(s) = s + s³/6 + 3s⁵/40 + 5s⁷/112 + 35s⁹/1152 + …, whose coefficients from the fifth
//   on are ≤ 35/1152, so adding 35/1152·s⁹/(1 − s²) for the tail gives an upper bound, above
//   asin(s) by less than 6e-14 rad at s ≤ 0.05;
//   sin(w) = w − w³/6 + w⁵/120 − w⁷/5040 + …, alternating and decreasing: the error is below
//   w⁹/362880 < 1e-16·w.
constexpr double kSmallAngle = 0.05;

double asin_small_upper(double s) {
  const double s2 = s * s;
  // 1/(1 − s²) ≤ 1.0026 for s ≤ 0.05.
  const double tail = (35.0 / 1152.0 * 1.0026) * s2 * s2;
  return s + s * s2 * (1.0 / 6.0 + s2 * (3.0 / 40.0 + s2 * (5.0 / 112.0 + tail)));
}

double sin_small(double w) {
  const double w2 = w * w;
  return w - w * w2 * (1.0 / 6.0 - w2 * (1.0 / 120.0 - w2 * (1.0 / 5040.0)));
}

double sin_fast(double w) { return w <= kSmallAngle ? sin_small(w) : std::sin(w); }

// Angle between unit vectors from their cross product's norm s and dot d: asin(s) (an upper
// bound, see above) when both are small and d > 0, else atan2.
double unit_angle(double s, double d) {
  return d > 0 && s <= kSmallAngle ? asin_small_upper(s) : std::atan2(s, d);
}

// The two most separated of n unit vectors (smallest dot product), which every enclosing cap
// must contain; returns their dot product.
double farthest_pair(const Vec3* u, int n, int& fi, int& fj) {
  double far_dot = 2;
  fi = 0;
  fj = 1;
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
  return far_dot;
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
  const double cos_beta = c1.axis.dot(c2.axis);
  const double beta = unit_angle(c1.axis.cross(c2.axis).norm(), cos_beta);
  const double alpha = 0.5 * (beta + c1.angle + c2.angle);
  const double weight_left = alpha - c1.angle;   // angle of the new axis from x1
  const double weight_right = alpha - c2.angle;  // ... and from x2
  if (weight_left <= 0) return c1;  // c2 inside c1 (Alg. 1, lines 6–8)
  if (weight_right <= 0) return c2;
  if (!(alpha < kPi)) return full_cone();
  if (cos_beta > 0) {
    // Alg. 1, line 13 as written: x = sin(w_r)·x1 + sin(w_l)·x2 normalised. With β < π/2 the
    // two terms never cancel, and rounding the weights moves x by (their absolute error / their
    // sum)·β ≈ 1e-16 rad whatever β is, so nearly parallel axes — the usual case between
    // neighbouring patches of a smooth cloth — need neither 1/sin β nor a certification; the
    // pad covers the rest.
    const double sl = sin_fast(weight_left), sr = sin_fast(weight_right);
    Vec3 axis = sr * c1.axis + sl * c2.axis;
    axis.normalize();
    return clamp_cone(axis, alpha + kConePad);
  }
  // Wide angles between the axes: x = sin(w_r)·x1 + sin(w_l)·x2 can cancel (antipodal axes).
  // Written as cos(w_l)·x1 + sin(w_l)·p with p the unit
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
  farthest_pair(u.data(), n, fi, fj);
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
  // This runs for every BVH leaf at every step, so the usual case gets fast paths of
  // minimum_cone. When the cap on two of the points (axis m at their arc midpoint, radius half
  // their angle β) contains the other three, it is the minimum cone: every enclosing cap
  // contains those two. The others are tested by the sines of their angles to m (|m × u|),
  // which stay accurate for the tiny angles of a slowly turning triangle, where cosines near 1
  // cannot tell 1e-8 rad from 0.
  //
  // First the two ends of the path, n0 and n1 (the farthest pair for all but ~1e-5 of the
  // leaves of the benchmark cloths). Nothing needs normalising: M = |n1|·n0 + |n0|·n1 is along
  // the arc midpoint of their directions, and p is within the cap when M·p > 0 and
  // sin²∠(M, p) = |M × p|²/(|M|²|p|²) is at most the cap's (the larger of the two ends', equal
  // up to rounding). Only the result's axis and radius need |M|.
  {
    const Vec3& p0 = points[0];
    const Vec3& p4 = points[4];
    const double l0 = p0.squaredNorm(), l4 = p4.squaredNorm();
    if (l0 > 0 && l4 > 0 && std::isfinite(l0) && std::isfinite(l4)) {
      const Vec3 M = std::sqrt(l4) * p0 + std::sqrt(l0) * p4;
      const double d0 = M.dot(p0), d4 = M.dot(p4);
      const double c0 = M.cross(p0).squaredNorm(), c4 = M.cross(p4).squaredNorm();
      // |M × p|²/|p|² for the cap; d0, d4 > 0 and c/l ≤ d²/l (angle below 45° from m, i.e.
      // ends less than 90° apart) keep the sine test well conditioned (see below).
      const double cap = std::max(c0 / l0, c4 / l4);
      bool inside = d0 > 0 && d4 > 0 && c0 <= d0 * d0 && c4 <= d4 * d4;
      for (int k = 1; k < 4 && inside; ++k) {
        const Vec3& p = points[k];
        inside = M.dot(p) > 0 && M.cross(p).squaredNorm() <= cap * p.squaredNorm();
      }
      if (inside) {
        const double M2 = M.squaredNorm();
        const double sine = std::sqrt(cap / M2);
        const Vec3 axis = M * (1.0 / std::sqrt(M2));
        // The sine comparisons above are exact to a few ulps, which in angle is a few ulps
        // times tan(radius) ≤ 1: the pad covers it, and the axis's own rounding (~1e-16 rad).
        const double radius = sine <= kSmallAngle
                                  ? asin_small_upper(sine)
                                  : std::max(std::atan2(std::sqrt(c0), d0), std::atan2(std::sqrt(c4), d4));
        return convex_or_full(clamp_cone(axis, radius + kConePad));
      }
    }
  }
  // Then the two most separated points, normalised.
  std::array<Vec3, 5> u;
  for (int k = 0; k < 5; ++k) {
    const double len2 = points[k].squaredNorm();
    if (!(len2 > 0) || !std::isfinite(len2)) return NormalCone{Vec3::UnitZ(), kPi};
    u[k] = points[k] * (1.0 / std::sqrt(len2));
  }
  int fi = 0, fj = 1;
  const double far_dot = farthest_pair(u.data(), 5, fi, fj);
  Vec3 m = u[fi] + u[fj];
  const double mlen = m.norm();
  // Below cos 60° between m and the pair (β > 120°) the sine test loses resolution; such a
  // triangle turns too far in one step to matter, and gets the exhaustive search.
  if (mlen > 1.0) {
    m /= mlen;
    const double radius = 0.5 * unit_angle(u[fi].cross(u[fj]).norm(), far_dot);
    const double s2_cap = std::max(m.cross(u[fi]).squaredNorm(), m.cross(u[fj]).squaredNorm());
    double extra = radius;
    bool inside = true;
    for (int k = 0; k < 5 && inside; ++k) {
      if (k == fi || k == fj) continue;
      if (m.dot(u[k]) > 0 && m.cross(u[k]).squaredNorm() <= s2_cap) continue;  // within the cap
      // Just outside (a few ulps of a tiny cap): widen to it; clearly outside: not the optimum.
      const double a = angle_between(m, u[k]);
      if (a <= radius + 1e-9) {
        extra = std::max(extra, a);
      } else {
        inside = false;
      }
    }
    // |m × u| ≤ |m × u_fi| bounds a direction's angle by the cap's up to a few ulps times
    // tan(radius) ≤ √3, and m is the pair's midpoint to ~1e-16 rad: the pad covers both.
    if (inside) return convex_or_full(clamp_cone(m, extra + kConePad));
  }
  return convex_or_full(minimum_cone(points));
}

}  // namespace impetus
