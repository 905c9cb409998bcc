#include "collision/distance/gjk.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace impetus {
namespace {

// Relative accuracy of the distance at which GJK stops: ‖v‖² − v·w <= kRelTol·‖v‖², i.e. the
// gap between the upper bound ‖v‖ and the lower bound v·w/‖v‖ is below kRelTol·‖v‖.
constexpr double kRelTol = 1e-11;
// The origin counts as inside D when ‖v‖ <= kAbsTol·(size of the pair).
constexpr double kAbsTol = 1e-10;
// Absolute floor of that gap, relative to the pair's size: on a curved support the simplex's
// closest point carries round-off of the order of the coordinates' (not the distance's), so a
// small distance between large shapes may otherwise never meet kRelTol.
constexpr double kAbsGapTol = 1e-13;
// Smooth shapes (ellipsoids) converge linearly; polytopes terminate in a few iterations.
constexpr int kMaxIterations = 128;
// Restarts after a round-off stall (see the loop).
constexpr int kMaxRestarts = 4;

// Closest point of a sub-simplex: indices into the simplex, weights, point.
struct SubSimplex {
  std::array<int, 4> index{};
  std::array<double, 4> weight{};
  int count = 0;
  Vec3 point = Vec3::Zero();
};

SubSimplex vertex_sub(const GjkSimplex& s, int i) {
  SubSimplex r;
  r.index[0] = i;
  r.weight[0] = 1;
  r.count = 1;
  r.point = s.v[i].w;
  return r;
}

SubSimplex closest_on_segment(const GjkSimplex& s, int i, int j) {
  const Vec3& a = s.v[i].w;
  const Vec3& b = s.v[j].w;
  Vec3 ab = b - a;
  double denom = ab.squaredNorm();
  if (denom <= 0) return vertex_sub(s, i);
  double t = -a.dot(ab) / denom;
  if (t <= 0) return vertex_sub(s, i);
  if (t >= 1) return vertex_sub(s, j);
  SubSimplex r;
  r.index[0] = i;
  r.index[1] = j;
  r.weight[0] = 1 - t;
  r.weight[1] = t;
  r.count = 2;
  r.point = a + t * ab;
  return r;
}

SubSimplex best_of(const SubSimplex& x, const SubSimplex& y) {
  return y.point.squaredNorm() < x.point.squaredNorm() ? y : x;
}

// Closest point of triangle (i, j, k) to the origin. The barycentric coordinates of the
// origin's projection are ratios of signed areas, λ_a = n·(b × c)/‖n‖² (cyclic) with
// n = (b − a) × (c − a): error ~ε/sin θ for a thin triangle of angle θ, where the dot-product
// (Voronoi-region) form loses ~ε/sin²θ — enough to stall GJK on curved shapes, whose support
// points cluster into thin triangles. Projections outside the triangle go to the edges facing
// the origin.
SubSimplex closest_on_triangle(const GjkSimplex& s, int i, int j, int k) {
  const Vec3& a = s.v[i].w;
  const Vec3& b = s.v[j].w;
  const Vec3& c = s.v[k].w;
  const Vec3 n = (b - a).cross(c - a);
  const double nn = n.squaredNorm();
  if (!(nn > 1e-24 * (b - a).squaredNorm() * (c - a).squaredNorm())) {
    return best_of(best_of(closest_on_segment(s, i, j), closest_on_segment(s, i, k)),
                   closest_on_segment(s, j, k));
  }
  double la = n.dot(b.cross(c)) / nn;
  double lb = n.dot(c.cross(a)) / nn;
  double lc = n.dot(a.cross(b)) / nn;
  if (la >= 0 && lb >= 0 && lc >= 0) {
    // Renormalised, so that the point is a convex combination (inside D) despite round-off.
    const double sum = la + lb + lc;
    la /= sum;
    lb /= sum;
    lc /= sum;
    SubSimplex r;
    r.index = {i, j, k, 0};
    r.weight = {la, lb, lc, 0};
    r.count = 3;
    r.point = la * a + lb * b + lc * c;
    return r;
  }
  // Outside: the closest point is on an edge opposite a vertex with a negative coordinate.
  SubSimplex best;
  bool found = false;
  auto consider = [&](const SubSimplex& x) {
    if (!found || x.point.squaredNorm() < best.point.squaredNorm()) best = x;
    found = true;
  };
  if (la < 0) consider(closest_on_segment(s, j, k));
  if (lb < 0) consider(closest_on_segment(s, i, k));
  if (lc < 0) consider(closest_on_segment(s, i, j));
  return best;
}

// True when the origin and `opposite` lie strictly on different sides of plane (a, b, c), or
// when the tetrahedron is too flat to tell (then the face is examined anyway).
bool origin_outside_face(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& opposite) {
  Vec3 n = (b - a).cross(c - a);
  double side_origin = -a.dot(n);
  double side_opposite = (opposite - a).dot(n);
  double scale = n.norm() * ((opposite - a).norm() + a.norm());
  if (std::abs(side_opposite) <= 1e-12 * scale) return true;
  return side_origin * side_opposite < 0;
}

// Tetrahedron: the closest point lies on a face that separates the origin from the opposite
// vertex; none such means the origin is inside.
bool closest_on_tetrahedron(const GjkSimplex& s, SubSimplex& out) {
  static constexpr int kFaces[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
  bool found = false;
  for (const auto& f : kFaces) {
    if (!origin_outside_face(s.v[f[0]].w, s.v[f[1]].w, s.v[f[2]].w, s.v[f[3]].w)) continue;
    SubSimplex r = closest_on_triangle(s, f[0], f[1], f[2]);
    if (!found || r.point.squaredNorm() < out.point.squaredNorm()) out = r;
    found = true;
  }
  return found;
}

}  // namespace

GjkVertex minkowski_support(const ConvexSupport& a, const ConvexSupport& b, const Vec3& dir,
                            double inflate_a, double inflate_b) {
  GjkVertex x;
  x.a = a.support_core(dir);
  x.b = b.support_core(-dir);
  double n = dir.norm();
  if (n > 0) {
    if (inflate_a > 0) x.a += dir * (inflate_a / n);
    if (inflate_b > 0) x.b -= dir * (inflate_b / n);
  }
  x.w = x.a - x.b;
  return x;
}

bool gjk_closest_on_simplex(GjkSimplex& simplex, std::array<double, 4>& weights, Vec3& closest) {
  SubSimplex r;
  switch (simplex.count) {
    case 1: r = vertex_sub(simplex, 0); break;
    case 2: r = closest_on_segment(simplex, 0, 1); break;
    case 3: r = closest_on_triangle(simplex, 0, 1, 2); break;
    default:
      if (!closest_on_tetrahedron(simplex, r)) {
        closest = Vec3::Zero();
        return false;
      }
      break;
  }
  // Keep the sub-simplex's vertices in their original order (determinism, and the newest
  // vertex stays last).
  std::array<int, 4> order = r.index;
  std::array<double, 4> w = r.weight;
  for (int x = 0; x < r.count; ++x) {
    for (int y = x + 1; y < r.count; ++y) {
      if (order[y] < order[x]) {
        std::swap(order[x], order[y]);
        std::swap(w[x], w[y]);
      }
    }
  }
  GjkSimplex reduced;
  reduced.count = r.count;
  for (int x = 0; x < r.count; ++x) {
    reduced.v[x] = simplex.v[order[x]];
    weights[x] = w[x];
  }
  simplex = reduced;
  closest = r.point;
  return true;
}

GjkResult gjk_closest_points(const ConvexSupport& a, const ConvexSupport& b,
                             const GjkOptions& options) {
  GjkResult res;
  const double scale = a.extent() + b.extent() + options.inflate_a + options.inflate_b;
  const double abs_tol_sq = (kAbsTol * scale) * (kAbsTol * scale);

  Vec3 dir = b.center() - a.center();
  if (dir.squaredNorm() <= 1e-30 * scale * scale) dir = Vec3::UnitX();
  GjkSimplex& s = res.simplex;
  s.v[0] = minkowski_support(a, b, dir, options.inflate_a, options.inflate_b);
  s.count = 1;
  std::array<double, 4> weights = {1, 0, 0, 0};
  Vec3 v = s.v[0].w;

  // Best point so far (upper bound ‖v‖) and the best separating-plane bound (lower bound, used
  // for the early exit beyond max_distance).
  GjkSimplex best = s;
  std::array<double, 4> best_weights = weights;
  double best_vv = v.squaredNorm();
  double lower = 0;
  int restarts = 0;

  for (int it = 0; it < kMaxIterations; ++it) {
    res.iterations = it + 1;
    double vv = v.squaredNorm();
    if (vv <= abs_tol_sq) {
      res.overlap = true;
      break;
    }
    GjkVertex w = minkowski_support(a, b, -v, options.inflate_a, options.inflate_b);
    double vw = v.dot(w.w);
    // v·w/‖v‖ is a lower bound on the distance (separating plane with normal v).
    if (vw > 0) lower = std::max(lower, vw / std::sqrt(vv));
    if (vw > 0 && lower > options.max_distance) {
      res.separated_early = true;
      res.distance = lower;
      return res;
    }
    if (vv - vw <= kRelTol * vv) {
      // Converged on the current point: its own separating plane certifies it.
      best = s;
      best_weights = weights;
      best_vv = vv;
      break;
    }
    // Van den Bergen's rule on the best bounds so far: the best point against the best plane. On
    // curved supports the current plane alone can stall just short of kRelTol while an earlier
    // one already certifies the distance.
    const double upper = std::sqrt(best_vv);
    if (lower > 0 && upper - lower <= kRelTol * upper + kAbsGapTol * scale) break;
    bool duplicate = false;
    for (int i = 0; i < s.count; ++i) {
      if ((s.v[i].w - w.w).squaredNorm() <= 1e-28 * scale * scale) duplicate = true;
    }
    if (duplicate) break;

    s.v[s.count++] = w;
    Vec3 nv;
    if (!gjk_closest_on_simplex(s, weights, nv)) {
      // "Origin inside the tetrahedron" from a nearly flat one (support points of a curved
      // surface cluster, e.g. three within 1e-6 of each other) is round-off when a separating
      // plane has already been found: D lies in {x : n·x >= lower > 0}, which misses the
      // origin. Stop on the best point then; claiming overlap sent separated pairs to the
      // penetration path, whose fallback reported depths of centimetres.
      if (lower > kAbsTol * scale) break;
      res.overlap = true;
      break;
    }
    if (nv.squaredNorm() >= vv) {
      // No progress: round-off in a thin simplex (curved surfaces make the support points
      // cluster). Restart from the newest support point; the best point is kept aside.
      if (restarts++ == kMaxRestarts) break;
      s.v[0] = w;
      s.count = 1;
      weights = {1, 0, 0, 0};
      v = w.w;
      continue;
    }
    v = nv;
    if (v.squaredNorm() < best_vv) {
      best_vv = v.squaredNorm();
      best = s;
      best_weights = weights;
    }
  }

  if (res.overlap) {
    res.distance = 0;
    return res;
  }
  s = best;
  Vec3 pa = Vec3::Zero();
  Vec3 pb = Vec3::Zero();
  for (int i = 0; i < s.count; ++i) {
    pa += best_weights[i] * s.v[i].a;
    pb += best_weights[i] * s.v[i].b;
  }
  res.point_a = pa;
  res.point_b = pb;
  res.distance = std::sqrt(best_vv);
  return res;
}

}  // namespace impetus
