#pragma once
// Expanding Polytope Algorithm (van den Bergen 2001): penetration depth and direction of two
// overlapping convex sets, by growing a polytope inside the Minkowski difference D = A − B
// towards the boundary point of D closest to the origin.
#include <optional>

#include "collision/base/math.h"
#include "collision/shape/convex_support.h"
#include "collision/distance/gjk.h"

namespace impetus {

struct EpaResult {
  double depth = 0;            // distance from the origin to ∂D [m], >= 0
  Vec3 normal = Vec3::UnitZ(); // unit, a → b: translating b by depth·normal separates the sets
  Vec3 point_a = Vec3::Zero(); // deepest point of a in b (on a's inflated surface)
  Vec3 point_b = Vec3::Zero(); // deepest point of b in a; point_b − point_a = −depth·normal
  int iterations = 0;
  bool converged = false;      // support gap below tolerance (else: best face when stopped)
};

/// Penetration of core(a) ⊕ ball(inflate_a) and core(b) ⊕ ball(inflate_b) (ConvexSupport::radius
/// is ignored, as in GJK). `start` is the final simplex of gjk_closest_points on the same
/// inflated sets that reported overlap. Returns nullopt when no polytope enclosing the origin
/// can be built (the origin is on or numerically at D's boundary): callers fall back.
std::optional<EpaResult> epa_penetration(const ConvexSupport& a, const ConvexSupport& b,
                                         double inflate_a, double inflate_b,
                                         const GjkSimplex& start);

}  // namespace impetus
