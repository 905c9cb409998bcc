#pragma once
// GJK closest points between two convex sets given by support mappings (Gilbert, Johnson and
// Keerthi 1988; van den Bergen's formulation): iterates on a simplex of the Minkowski difference
// D = A − B, replacing the simplex by the smallest sub-simplex that holds its point closest to
// the origin (Voronoi-region tests, Ericson, Real-Time Collision Detection §5.1 and §9.5).
#include <array>
#include <limits>

#include "collision/base/math.h"
#include "collision/shape/convex_support.h"

namespace impetus {

/// One simplex vertex: w = a − b with a, b the support points of the two sets.
struct GjkVertex {
  Vec3 w = Vec3::Zero();
  Vec3 a = Vec3::Zero();
  Vec3 b = Vec3::Zero();
};

struct GjkSimplex {
  std::array<GjkVertex, 4> v;
  int count = 0;
};

struct GjkOptions {
  /// Balls of these radii are swept over the cores of a and b (the ConvexSupport::radius field
  /// is ignored by GJK; callers add it, or pass it here).
  double inflate_a = 0;
  double inflate_b = 0;
  /// Stop as soon as the distance is proved larger than this (the result then holds a lower
  /// bound and `separated_early` is set). Lets callers reject pairs beyond a margin cheaply.
  double max_distance = std::numeric_limits<double>::infinity();
};

struct GjkResult {
  double distance = 0;            // between the (inflated) cores, >= 0 [m]
  Vec3 point_a = Vec3::Zero();    // closest point on a (world)
  Vec3 point_b = Vec3::Zero();    // closest point on b (world)
  bool overlap = false;           // the sets intersect (distance below ~1e-10 of their size)
  bool separated_early = false;   // stopped on GjkOptions::max_distance; distance is a lower bound
  GjkSimplex simplex;             // final simplex (contains the origin when overlap)
  int iterations = 0;
};

/// Support vertex of D = A − B along dir: a's core point along dir (plus inflate_a·dir/‖dir‖)
/// minus b's core point along −dir (minus inflate_b·dir/‖dir‖).
GjkVertex minkowski_support(const ConvexSupport& a, const ConvexSupport& b, const Vec3& dir,
                            double inflate_a, double inflate_b);

/// Closest points of the cores of a and b (inflated by options). Deterministic and
/// allocation-free; converges to a relative accuracy of about 1e-10 of the distance.
GjkResult gjk_closest_points(const ConvexSupport& a, const ConvexSupport& b,
                             const GjkOptions& options = {});

/// Point of the simplex closest to the origin; reduces `simplex` to the sub-simplex that holds
/// it and writes its barycentric weights. Returns false when the origin is inside a
/// tetrahedron (count stays 4). Exposed for tests.
bool gjk_closest_on_simplex(GjkSimplex& simplex, std::array<double, 4>& weights, Vec3& closest);

}  // namespace impetus
