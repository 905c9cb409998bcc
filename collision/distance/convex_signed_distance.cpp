#include "collision/distance/convex_signed_distance.h"

#include <cmath>

#include "collision/distance/epa.h"
#include "collision/distance/gjk.h"

namespace impetus {
namespace {

// Below this core distance (relative to the pair's size) GJK's normal is no longer reliable
// and EPA takes over.
constexpr double kTouchTol = 1e-9;
// When the cores touch, EPA runs on the sets inflated by this much more (relative): the origin
// is then strictly inside the inflated difference, and the inflation is subtracted exactly
// afterwards (the boundary distance of a ball-swept convex set shifts by the ball radius).
constexpr double kEpaInflation = 1e-4;

// Depth along a fixed axis: the separating-axis separation −(h_A(n) + h_B(−n) − n·(cb − ca))
// written with support points. Used when EPA cannot build its start polytope.
ConvexDistance axis_fallback(const ConvexSupport& a, const ConvexSupport& b) {
  Vec3 n = b.center() - a.center();
  if (n.squaredNorm() <= 0) n = Vec3::UnitZ();
  n.normalize();
  ConvexDistance r;
  r.normal = n;
  r.point_a = a.support(n);
  Vec3 pb = b.support(-n);
  r.distance = n.dot(pb - r.point_a);
  r.point_b = r.point_a + r.distance * n;
  r.fallback = true;
  return r;
}

}  // namespace

ConvexDistance convex_signed_distance(const ConvexSupport& a, const ConvexSupport& b,
                                      double max_distance) {
  const double scale = a.extent() + b.extent();
  const double radii = a.radius + b.radius;

  // 1. Cores apart: exact closest points, the radii added along the normal.
  GjkOptions core_options;
  core_options.max_distance = max_distance + radii;
  GjkResult core = gjk_closest_points(a, b, core_options);
  ConvexDistance r;
  if (core.separated_early) {
    r.distance = core.distance - radii;
    return r;
  }
  if (!core.overlap && core.distance > kTouchTol * scale) {
    r.normal = (core.point_b - core.point_a) / core.distance;
    r.point_a = core.point_a + a.radius * r.normal;
    r.point_b = core.point_b - b.radius * r.normal;
    r.distance = core.distance - radii;
    return r;
  }

  // 2. Cores overlap. Polytopes (no radius): EPA on the cores themselves converges exactly in
  // a few steps; it fails only when the origin is (numerically) on the boundary, i.e. the
  // cores just touch, and then the inflated path below takes over.
  if (radii == 0 && core.overlap) {
    std::optional<EpaResult> e = epa_penetration(a, b, 0, 0, core.simplex);
    if (e && e->converged && e->depth > kTouchTol * scale) {
      r.normal = e->normal;
      r.distance = -e->depth;
      r.point_a = e->point_a;
      r.point_b = e->point_b;
      return r;
    }
  }

  // 3. EPA on core ⊕ ball(radius + rho/2) for each set: the origin is then inside by at least
  // rho even when the cores just touch. Rounded sets already have their radius for that.
  const double rho = radii > kEpaInflation * scale ? 0.0 : kEpaInflation * scale;
  const double ia = a.radius + 0.5 * rho;
  const double ib = b.radius + 0.5 * rho;
  GjkOptions inflated;
  inflated.inflate_a = ia;
  inflated.inflate_b = ib;
  GjkResult g = gjk_closest_points(a, b, inflated);
  if (!g.overlap) return axis_fallback(a, b);
  std::optional<EpaResult> e = epa_penetration(a, b, ia, ib, g.simplex);
  if (!e) return axis_fallback(a, b);
  // δ(true) = rho − depth(inflated); the witnesses move back by rho/2 along their normals.
  r.normal = e->normal;
  r.distance = rho - e->depth;
  r.point_a = e->point_a - 0.5 * rho * r.normal;
  r.point_b = e->point_b + 0.5 * rho * r.normal;
  return r;
}

}  // namespace impetus
